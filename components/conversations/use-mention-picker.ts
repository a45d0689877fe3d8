'use client';

import { useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { useQuery } from '@tanstack/react-query';
import { mentionQueryAt, pickTarget, popupContent, type PopupContent } from '@/lib/mentions/picker';
import type { MentionTarget, Recipient } from '@/lib/mentions/types';
import type { MentionQuery } from '@/lib/mentions/mention-query';
import { wrapIndex } from '@/lib/mentions/mention-query';
import { conversationKeys, getMentionTargets } from './api';
import { loadErrorMessage } from './errors';
import { mentionOptionId } from './mention-popup';

/**
 * State and keyboard handling of the composer's @mention list. The targets are fetched once the person starts
 * writing (focus or `@`), not on every page view, and kept fresh by TanStack Query after that.
 */
export function useMentionPicker({
  conversationId,
  textareaRef,
  text,
  recipients,
  onPicked,
}: {
  conversationId: string;
  textareaRef: RefObject<HTMLTextAreaElement | null>;
  text: string;
  recipients: Recipient[];
  /** The draft after a pick: the `@query` text removed and the target added to the recipients. */
  onPicked: (next: { text: string; recipients: Recipient[] }) => void;
}) {
  const listboxId = useId();
  const [query, setQuery] = useState<MentionQuery | null>(null);
  const [active, setActive] = useState(0);
  const [wanted, setWanted] = useState(false);
  const composing = useRef(false);
  /** The `@` the person dismissed with Escape, so the same token does not reopen the list. */
  const dismissedAt = useRef<number | null>(null);
  const pendingCaret = useRef<number | null>(null);

  const targetsQuery = useQuery({
    queryKey: conversationKeys.mentionTargets(conversationId),
    queryFn: ({ signal }) => getMentionTargets(conversationId, signal),
    enabled: wanted,
    staleTime: 30_000,
    retry: 1,
  });
  const targets = targetsQuery.data?.targets;

  const open = query !== null;
  const content: PopupContent = popupContent({
    targets,
    loading: targetsQuery.isFetching,
    error: targetsQuery.isError ? loadErrorMessage(targetsQuery.error, 'Team members') : null,
    query: query?.query ?? '',
    picked: recipients,
  });
  const options = content.kind === 'options' ? content.options : [];
  const activeIndex = options.length === 0 ? -1 : Math.min(active, options.length - 1);
  const activeOption = activeIndex >= 0 ? options[activeIndex] : undefined;

  // Targets that arrive while the person types decide again whether the text at the caret is a mention:
  // a query with spaces ("@Launch crew / W") only stays open once the labels are known.
  const syncRef = useRef<(value: string, caret: number) => void>(() => {});
  useEffect(() => {
    const el = textareaRef.current;
    if (!targets || !el || document.activeElement !== el || composing.current || el.selectionStart !== el.selectionEnd) return;
    syncRef.current(el.value, el.selectionStart);
  }, [targets, textareaRef]);

  // Put the caret where the removed `@query` was, once React has rendered the new text.
  useLayoutEffect(() => {
    const caret = pendingCaret.current;
    if (caret === null || !textareaRef.current) return;
    pendingCaret.current = null;
    textareaRef.current.setSelectionRange(caret, caret);
  }, [text, textareaRef]);

  /** Open, update or close the list for the text around the caret. */
  const sync = (value: string, caret: number) => {
    const next = mentionQueryAt(value, caret, targets ?? []);
    if (!next || next.start !== dismissedAt.current) dismissedAt.current = null;
    if (next && dismissedAt.current === null) {
      if (!wanted) setWanted(true);
      // Opening again after a failed load tries again.
      if (!open && targetsQuery.isError) void targetsQuery.refetch();
      if (query?.query !== next.query) setActive(0);
      setQuery(next);
    } else if (open) {
      setQuery(null);
    }
  };

  // A layout effect: it runs before the passive effect above in the same commit, so targets that just arrived are
  // matched by the sync of this render (with a passive effect that one would still see the previous, empty targets
  // and close a query with spaces for good).
  useLayoutEffect(() => {
    syncRef.current = sync;
  });

  const pick = (target: MentionTarget) => {
    if (!query) return;
    const next = pickTarget(text, query, recipients, target);
    pendingCaret.current = next.caret;
    setQuery(null);
    onPicked({ text: next.text, recipients: next.recipients });
    textareaRef.current?.focus();
  };

  /** True when the key belonged to the list (or to an input method) and the composer must ignore it. */
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    // Never act while an input method is composing: its Enter and arrows belong to the IME.
    if (event.nativeEvent.isComposing || composing.current || event.keyCode === 229) return true;
    if (!open) return false;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setActive(wrapIndex(activeIndex, event.key === 'ArrowDown' ? 1 : -1, options.length));
      return true;
    }
    const modified = event.shiftKey || event.ctrlKey || event.metaKey || event.altKey;
    if ((event.key === 'Enter' || event.key === 'Tab') && !modified && activeOption) {
      event.preventDefault();
      pick(activeOption);
      return true;
    }
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      dismissedAt.current = query.start;
      setQuery(null);
      return true;
    }
    return false;
  };

  const textareaProps = {
    'aria-autocomplete': 'list' as const,
    'aria-haspopup': 'listbox' as const,
    'aria-expanded': open,
    'aria-controls': open ? listboxId : undefined,
    'aria-activedescendant': open && activeOption ? mentionOptionId(listboxId, activeOption.memberId) : undefined,
    onSelect: (e: { currentTarget: HTMLTextAreaElement }) => {
      const el = e.currentTarget;
      if (!composing.current && el.selectionStart === el.selectionEnd) sync(el.value, el.selectionStart);
    },
    onCompositionStart: () => {
      composing.current = true;
    },
    onCompositionEnd: (e: { currentTarget: HTMLTextAreaElement }) => {
      composing.current = false;
      sync(e.currentTarget.value, e.currentTarget.selectionStart);
    },
    onFocus: () => setWanted(true),
    onBlur: () => setQuery(null),
  };

  return {
    open,
    listboxId,
    content,
    activeIndex,
    setActive,
    pick,
    retry: () => void targetsQuery.refetch(),
    /** Call from the textarea's onChange with the new value and caret. */
    onTextChange: (value: string, caret: number) => {
      if (!composing.current) sync(value, caret);
    },
    onKeyDown,
    textareaProps,
  };
}
