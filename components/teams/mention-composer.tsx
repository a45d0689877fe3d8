'use client';

import {
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type Dispatch,
  type KeyboardEvent,
  type RefObject,
  type SetStateAction,
} from 'react';
import { Button } from '@/components/ui/button';
import { cn } from '@/components/ui/cn';
import { Textarea } from '@/components/ui/input';
import { ApiError } from '@/lib/api-client';
import { LIMITS } from '@/lib/limits';
import { boundedTextProblem, counterLabel, measureText } from '@/lib/text-bounds';
import { newClientId } from '@/lib/idempotency/client-id';
import { draftSignature, draftStillEquals, forgetKeyAfterSuccess, keyForDraft, type KeyedDraft } from '@/lib/idempotency/draft-key';
import { filterByName, findMentionQuery, removeMentionQuery, wrapIndex, type MentionQuery } from '@/lib/mentions/mention-query';
import type { ApiMember } from '@/lib/types/team';
import { MentionListbox, optionId } from './mention-listbox';

export type ComposerDraft = { text: string; memberIds: string[] };
export const emptyDraft: ComposerDraft = { text: '', memberIds: [] };

type Picker = { mode: 'closed' } | { mode: 'mention'; query: MentionQuery } | { mode: 'picker' };

type Props = {
  members: ApiMember[];
  draft: ComposerDraft;
  setDraft: Dispatch<SetStateAction<ComposerDraft>>;
  /** Sends one request to every recipient; rejects with the server's error. */
  onSend: (draft: ComposerDraft, draftKey: string) => Promise<void>;
  textareaRef: RefObject<HTMLTextAreaElement | null>;
};

/**
 * "Message to team": recipients are chips picked with `@` or "@ Choose members" — a name typed as plain text
 * routes nothing. Enter inserts a newline (it picks while the list is open); Ctrl/⌘+Enter or Send sends.
 */
export function MentionComposer({ members, draft, setDraft, onSend, textareaRef }: Props) {
  const listboxId = useId();
  const hintId = useId();
  const counterId = useId();
  const errorId = useId();
  const [picker, setPicker] = useState<Picker>({ mode: 'closed' });
  const [active, setActive] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const composing = useRef(false);
  /** The `@` position the reader dismissed with Escape, so the same token doesn't reopen the list. */
  const dismissedAt = useRef<number | null>(null);
  const pendingCaret = useRef<number | null>(null);
  const draftKey = useRef<KeyedDraft | null>(null);

  const byId = useMemo(() => new Map(members.map((m) => [m.id, m])), [members]);
  const names = useMemo(() => members.map((m) => m.name), [members]);
  const available = members.filter((m) => !draft.memberIds.includes(m.id));
  const options =
    picker.mode === 'mention' ? filterByName(available, picker.query.query) : picker.mode === 'picker' ? available : [];
  const open = picker.mode !== 'closed';
  const activeIndex = options.length === 0 ? -1 : Math.min(active, options.length - 1);
  const activeOption = activeIndex >= 0 ? options[activeIndex] : undefined;

  const measure = measureText(draft.text, LIMITS.task);

  useLayoutEffect(() => {
    const caret = pendingCaret.current;
    if (caret === null || !textareaRef.current) return;
    pendingCaret.current = null;
    textareaRef.current.setSelectionRange(caret, caret);
  }, [draft.text, textareaRef]);

  /** Open, update or close the mention list for the text around the caret. */
  const syncMention = (text: string, caret: number) => {
    const query = findMentionQuery(text, caret, names);
    if (!query || query.start !== dismissedAt.current) dismissedAt.current = null;
    if (query && dismissedAt.current === null) {
      if (picker.mode !== 'mention' || picker.query.query !== query.query) setActive(0);
      setPicker({ mode: 'mention', query });
    } else {
      if (picker.mode !== 'closed') setPicker({ mode: 'closed' });
    }
  };

  const close = () => setPicker({ mode: 'closed' });

  const openPicker = () => {
    setActive(0);
    setPicker({ mode: 'picker' });
    textareaRef.current?.focus();
  };

  const pick = (member: ApiMember) => {
    setError(null);
    setNotice(null);
    if (picker.mode === 'mention') {
      const { text, caret } = removeMentionQuery(draft.text, picker.query);
      pendingCaret.current = caret;
      setDraft((d) => ({ text, memberIds: d.memberIds.includes(member.id) ? d.memberIds : [...d.memberIds, member.id] }));
      close();
    } else {
      setDraft((d) => ({ ...d, memberIds: d.memberIds.includes(member.id) ? d.memberIds : [...d.memberIds, member.id] }));
      // The picker stays open to choose several, until everyone is chosen.
      if (available.length <= 1) close();
    }
    textareaRef.current?.focus();
  };

  const removeRecipient = (id: string) => {
    setDraft((d) => ({ ...d, memberIds: d.memberIds.filter((m) => m !== id) }));
    textareaRef.current?.focus();
  };

  const send = async () => {
    if (sending) return;
    setNotice(null);
    const sent: ComposerDraft = { text: draft.text, memberIds: [...draft.memberIds] };
    if (sent.memberIds.length === 0) {
      setError('Choose at least one member');
      openPicker();
      return;
    }
    // Checked here first: an over-long message is refused without any request, and the text stays.
    const problem = boundedTextProblem(sent.text, LIMITS.task, 'Message');
    if (problem) {
      setError(problem);
      textareaRef.current?.focus();
      return;
    }
    setError(null);
    close();
    draftKey.current = keyForDraft(draftKey.current, draftSignature(sent.text, sent.memberIds), newClientId);
    const key = draftKey.current.key;
    setSending(true);
    try {
      await onSend(sent, key);
      draftKey.current = forgetKeyAfterSuccess(draftKey.current, key);
      setDraft((current) => (draftStillEquals(current, sent) ? emptyDraft : current));
      const to = sent.memberIds.map((id) => `@${byId.get(id)?.name ?? 'member'}`).join(', ');
      setNotice(`Sent to ${to}`);
    } catch (e) {
      setError(e instanceof ApiError ? (e.fields.text ?? e.fields.memberIds ?? e.message) : 'Sending failed; try again.');
    } finally {
      setSending(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // Never act while an input method is composing: its Enter and arrows belong to the IME.
    if (event.nativeEvent.isComposing || composing.current || event.keyCode === 229) return;
    if (event.key === 'Enter' && (event.metaKey || event.ctrlKey)) {
      event.preventDefault();
      void send();
      return;
    }
    if (!open) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setActive(wrapIndex(activeIndex, event.key === 'ArrowDown' ? 1 : -1, options.length));
    } else if ((event.key === 'Enter' || event.key === 'Tab') && !event.shiftKey && activeOption) {
      event.preventDefault();
      pick(activeOption);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      if (picker.mode === 'mention') dismissedAt.current = picker.query.start;
      close();
    }
  };

  const describedBy = [hintId, counterId, error ? errorId : null].filter(Boolean).join(' ');

  return (
    <div className="space-y-2">
      {draft.memberIds.length > 0 ? (
        <ul aria-label="Recipients" className="flex flex-wrap gap-2">
          {draft.memberIds.map((id) => {
            const name = byId.get(id)?.name ?? 'Unknown member';
            return (
              <li key={id} className="max-w-full">
                <button
                  type="button"
                  onClick={() => removeRecipient(id)}
                  aria-label={`Remove recipient ${name}`}
                  className="inline-flex max-w-full items-center gap-1 rounded-full bg-indigo-100 px-3 py-1 text-sm text-indigo-900 hover:bg-indigo-200 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:bg-indigo-950 dark:text-indigo-100 dark:hover:bg-indigo-900"
                >
                  <span className="truncate">@{name}</span>
                  <span aria-hidden>×</span>
                </button>
              </li>
            );
          })}
        </ul>
      ) : (
        <p className="text-xs text-zinc-500 dark:text-zinc-400">No recipients yet — type @ or choose members.</p>
      )}

      <div className="relative">
        {open ? (
          <MentionListbox
            id={listboxId}
            options={options}
            activeIndex={activeIndex}
            onPick={pick}
            onHover={setActive}
            emptyText={available.length === 0 ? 'Every member is already a recipient.' : 'No member matches.'}
          />
        ) : null}
        <label htmlFor={`${listboxId}-input`} className="sr-only">
          Message to team
        </label>
        <Textarea
          ref={textareaRef}
          id={`${listboxId}-input`}
          rows={3}
          value={draft.text}
          placeholder="Message to team — type @ to add a recipient"
          aria-autocomplete="list"
          aria-haspopup="listbox"
          aria-expanded={open}
          aria-controls={open ? listboxId : undefined}
          aria-activedescendant={open && activeOption ? optionId(listboxId, activeOption.id) : undefined}
          aria-describedby={describedBy}
          aria-invalid={measure.over || undefined}
          className="min-h-20 resize-y"
          onChange={(e) => {
            setDraft((d) => ({ ...d, text: e.target.value }));
            if (error) setError(null);
            if (!composing.current) syncMention(e.target.value, e.target.selectionStart);
          }}
          onSelect={(e) => {
            if (composing.current || picker.mode === 'picker') return;
            const el = e.currentTarget;
            if (el.selectionStart === el.selectionEnd) syncMention(el.value, el.selectionStart);
          }}
          onCompositionStart={() => {
            composing.current = true;
          }}
          onCompositionEnd={(e) => {
            composing.current = false;
            syncMention(e.currentTarget.value, e.currentTarget.selectionStart);
          }}
          onKeyDown={onKeyDown}
          onBlur={close}
        />
      </div>

      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="min-w-0 space-y-0.5">
          <p id={counterId} className={cn('text-xs', measure.over ? 'font-medium text-red-600 dark:text-red-400' : 'text-zinc-500 dark:text-zinc-400')}>
            {counterLabel(measure, LIMITS.task)}
          </p>
          <p id={hintId} className="text-xs text-zinc-500 dark:text-zinc-400">
            Enter adds a line · Ctrl/⌘+Enter sends
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          <Button
            variant="secondary"
            size="sm"
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => (picker.mode === 'picker' ? close() : openPicker())}
            aria-expanded={picker.mode === 'picker'}
          >
            <span aria-hidden>@</span> Choose members
          </Button>
          <Button size="sm" onClick={() => void send()} disabled={sending}>
            {sending ? 'Sending…' : 'Send'}
          </Button>
        </div>
      </div>

      {error ? (
        <p id={errorId} role="alert" className="text-sm text-red-600 dark:text-red-400">
          {error}
        </p>
      ) : null}
      <p role="status" className="sr-only">
        {notice}
      </p>
    </div>
  );
}
