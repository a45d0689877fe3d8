'use client';

import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Button } from '@/components/ui/button';
import { Textarea } from '@/components/ui/input';
import { cn } from '@/components/ui/cn';
import { checkDraft, counterLabel, isSendShortcut } from './draft';
import type { KeyedDraft } from './idempotency';
import { sendDraft } from './send-draft';

type ComposerProps = {
  /** Sends the text with its idempotency key; throws (ApiError) when the server refuses. */
  onSend: (text: string, idempotencyKey: string) => Promise<void>;
  /** When set, sending is refused locally with this message (e.g. a run is still working). */
  busyMessage: string | null;
  /** Extra line under the field, e.g. that the next message answers the agent's question. */
  context?: string | null;
};

/**
 * The message box. Enter is a newline; Cmd/Ctrl+Enter or the Send button sends. What the person typed is never
 * lost: it is cleared only after a successful send, and only if it still equals what was sent.
 */
export function Composer({ onSend, busyMessage, context }: ComposerProps) {
  const id = useId();
  const [draft, setDraft] = useState('');
  const [sending, setSending] = useState(false);
  const [sendError, setSendError] = useState<string | null>(null);
  const keyed = useRef<KeyedDraft | null>(null);
  const inFlight = useRef(false);
  const draftRef = useRef(draft);
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    draftRef.current = draft;
  }, [draft]);

  const check = checkDraft(draft);
  const error = check.error ?? sendError;

  async function submit() {
    // A ref, not state: two quick presses within one render must not start two sends.
    if (inFlight.current) return;
    inFlight.current = true;
    setSending(true);
    const attempt = await sendDraft({
      text: draft,
      keyed: keyed.current,
      busyMessage,
      send: (text, key) => {
        setSendError(null);
        return onSend(text, key);
      },
      currentDraft: () => draftRef.current,
    });
    inFlight.current = false;
    setSending(false);
    keyed.current = attempt.keyed;
    if (attempt.outcome === 'sent') {
      setDraft(attempt.draft);
      return;
    }
    // An invalid draft already shows its error inline; only the other reasons need a message.
    if (!check.error) setSendError(attempt.error);
    textareaRef.current?.focus();
  }

  function onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (isSendShortcut({ key: e.key, metaKey: e.metaKey, ctrlKey: e.ctrlKey, isComposing: e.nativeEvent.isComposing })) {
      e.preventDefault();
      void submit();
    }
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    void submit();
  }

  const hintId = `${id}-hint`;
  const counterId = `${id}-counter`;
  const errorId = `${id}-error`;
  const describedBy = [hintId, check.nearLimit ? counterId : null, error ? errorId : null].filter(Boolean).join(' ');

  return (
    <form onSubmit={onSubmit} className="space-y-1.5">
      <label htmlFor={id} className="block text-sm font-medium text-zinc-800 dark:text-zinc-200">
        Message
      </label>
      <Textarea
        ref={textareaRef}
        id={id}
        value={draft}
        onChange={(e) => {
          setDraft(e.target.value);
          setSendError(null);
        }}
        onKeyDown={onKeyDown}
        rows={3}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        className="max-h-[40vh] min-h-20 resize-y"
      />
      {error ? (
        <p id={errorId} role="alert" className="text-sm break-words text-red-600 dark:text-red-400">
          {error}
        </p>
      ) : null}
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="min-w-0 flex-1 space-y-0.5 text-xs text-zinc-500 dark:text-zinc-400">
          <p id={hintId}>
            {context ? `${context} ` : null}Enter adds a new line; press Ctrl+Enter (⌘+Enter on a Mac) or Send to send.
          </p>
          {check.nearLimit ? (
            <p id={counterId} className={cn('tabular-nums', check.tooLong && 'font-medium text-red-600 dark:text-red-400')}>
              {counterLabel(check)}
            </p>
          ) : null}
        </div>
        <Button type="submit" disabled={sending} aria-describedby={error ? errorId : undefined}>
          {sending ? 'Sending…' : 'Send'}
        </Button>
      </div>
    </form>
  );
}
