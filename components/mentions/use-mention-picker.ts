'use client';

import { useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { listboxOptionId, nextActiveIndex } from '@/components/ui/listbox-keys';
import { removeMentionQuery, type MentionQuery } from '@/lib/mentions/mention-query';
import { listContent, mentionQueryAt, type ListContent, type MentionOption } from '@/lib/mentions/picker';

/** `mention`: opened by `@query` at the caret; `browse`: opened by a button, stays open to pick several. */
type ListState = { mode: 'closed' } | { mode: 'mention'; query: MentionQuery } | { mode: 'browse' };

export type MentionPickerOptions<T extends MentionOption> = {
  textareaRef: RefObject<HTMLTextAreaElement | null>;
  text: string;
  /** The targets, or undefined while they load (the list says so; a query with spaces waits for their labels). */
  targets: readonly T[] | undefined;
  loading?: boolean;
  /** Why the targets could not load; the list shows it with Retry. */
  error?: string | null;
  /** Keys already picked: not offered again. */
  pickedKeys: readonly string[];
  /** A pick: `text` is the draft with the `@query` removed (unchanged when browsing). */
  onPick: (pick: { target: T; text: string }) => void;
  /** The person started writing (focus) or opened the list: load the targets now (and again after a failure). */
  onDemand?: () => void;
};

/**
 * State and keyboard rules of the @mention list, for any kind of target. Focus stays in the textarea, which points
 * at the active option with aria-activedescendant; arrows wrap (components/ui/listbox-keys). Never acts while an input method composes; Escape dismisses the
 * `@` it was opened for, so that token does not reopen the list.
 */
export function useMentionPicker<T extends MentionOption>(opts: MentionPickerOptions<T>) {
  const { textareaRef, text, targets, pickedKeys } = opts;
  const listboxId = useId();
  const [list, setList] = useState<ListState>({ mode: 'closed' });
  const [active, setActive] = useState(0);
  const composing = useRef(false);
  const dismissedAt = useRef<number | null>(null);
  const pendingCaret = useRef<number | null>(null);

  const open = list.mode !== 'closed';
  const content: ListContent<T> = listContent({
    options: targets,
    loading: opts.loading ?? false,
    error: opts.error ?? null,
    query: list.mode === 'mention' ? list.query.query : '',
    pickedKeys,
  });
  const options = content.kind === 'options' ? content.options : [];
  const activeIndex = options.length === 0 ? -1 : Math.min(active, options.length - 1);
  const activeOption = activeIndex >= 0 ? options[activeIndex] : undefined;

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
      if (!open) opts.onDemand?.();
      if (list.mode !== 'mention' || list.query.query !== next.query) setActive(0);
      setList({ mode: 'mention', query: next });
    } else if (open) {
      setList({ mode: 'closed' });
    }
  };

  // Targets that arrive while the person types decide again whether the text at the caret is a mention: a query
  // with spaces ("@Launch crew / W") only stays open once the labels are known. `syncRef` is assigned in a layout
  // effect, which runs before any passive effect of the same commit (commit d03c14b), so the targets that just
  // arrived are matched by this render's sync (a stale assignment would still see the previous, empty targets and
  // close a query with spaces for good; e2e/conversation-mentions.spec.ts holds the targets back to prove it).
  const syncRef = useRef(sync);
  useLayoutEffect(() => {
    syncRef.current = sync;
  });
  useEffect(() => {
    const el = textareaRef.current;
    if (!targets || !el || document.activeElement !== el || composing.current || el.selectionStart !== el.selectionEnd) return;
    syncRef.current(el.value, el.selectionStart);
  }, [targets, textareaRef]);

  const close = () => setList({ mode: 'closed' });

  const pick = (target: T) => {
    if (list.mode === 'mention') {
      const removed = removeMentionQuery(text, list.query);
      pendingCaret.current = removed.caret;
      close();
      opts.onPick({ target, text: removed.text });
    } else {
      // Browsing stays open to pick several, until everyone is picked.
      if (options.length <= 1) close();
      opts.onPick({ target, text });
    }
    textareaRef.current?.focus();
  };

  /** True when the key belonged to the list (or to an input method) and the composer must ignore it. */
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    // Never act while an input method is composing: its Enter and arrows belong to the IME.
    if (event.nativeEvent.isComposing || composing.current || event.keyCode === 229) return true;
    if (!open) return false;
    const next = nextActiveIndex(event.key, activeIndex, options.length);
    if (next !== null) {
      event.preventDefault();
      setActive(next);
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
      if (list.mode === 'mention') dismissedAt.current = list.query.start;
      close();
      return true;
    }
    return false;
  };

  // A combobox (components/ui/listbox.tsx): the role that may say it is expanded and which list it controls.
  const textareaProps = {
    role: 'combobox' as const,
    'aria-autocomplete': 'list' as const,
    'aria-haspopup': 'listbox' as const,
    'aria-expanded': open,
    'aria-controls': open ? listboxId : undefined,
    'aria-activedescendant': open && activeOption ? listboxOptionId(listboxId, activeOption.key) : undefined,
    onSelect: (e: { currentTarget: HTMLTextAreaElement }) => {
      const el = e.currentTarget;
      // Moving the caret decides about `@query`s; it never closes a list opened by the button.
      if (!composing.current && list.mode !== 'browse' && el.selectionStart === el.selectionEnd) sync(el.value, el.selectionStart);
    },
    onCompositionStart: () => {
      composing.current = true;
    },
    onCompositionEnd: (e: { currentTarget: HTMLTextAreaElement }) => {
      composing.current = false;
      sync(e.currentTarget.value, e.currentTarget.selectionStart);
    },
    onFocus: () => opts.onDemand?.(),
    onBlur: close,
  };

  return {
    open,
    browsing: list.mode === 'browse',
    listboxId,
    content,
    activeIndex,
    setActive,
    pick,
    close,
    /** Open the whole list (a "Choose members" button), focusing the textarea. */
    browse: () => {
      opts.onDemand?.();
      setActive(0);
      setList({ mode: 'browse' });
      textareaRef.current?.focus();
    },
    /** Call from the textarea's onChange with the new value and caret. */
    onTextChange: (value: string, caret: number) => {
      if (!composing.current) sync(value, caret);
    },
    onKeyDown,
    textareaProps,
  };
}

export type MentionPicker<T extends MentionOption> = ReturnType<typeof useMentionPicker<T>>;
