'use client';

import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { AttachButton, AttachControl, dropHighlight } from '@/components/files/attach-control';
import { useAttachments } from '@/components/files/use-attachments';
import { MentionField } from '@/components/mentions/mention-field';
import { useMentionPicker } from '@/components/mentions/use-mention-picker';
import { Button } from '@/components/ui/button';
import { CharCounter } from '@/components/ui/char-counter';
import { cn } from '@/components/ui/cn';
import { addRecipient, removeRecipient, type ListTexts } from '@/lib/mentions/picker';
import type { QueuedMention, Recipient } from '@/lib/mentions/types';
import type { KeyedDraft } from '@/lib/idempotency/draft-key';
import { LIMITS } from '@/lib/limits';
import { checkDraft } from './draft';
import { sendDraft } from './send-draft';
import { mentionConfirmation, sendMentionDraft } from './send-mentions';
import { useMentionTargets, type TargetOption } from './use-mention-targets';

const LIST_TEXTS: ListTexts = {
  loading: 'Loading team members…',
  none: 'No team members to mention. Create a team to mention its members here.',
  'all-picked': 'Every team member is already a recipient.',
  'no-match': 'No team member matches.',
  error: 'Could not load team members',
};

export type ComposerMentions = {
  conversationId: string;
  /** Queues one request per member; throws (ApiError) when the server refuses. */
  send: (text: string, memberIds: string[], messageKey: string) => Promise<QueuedMention[]>;
  /** When set, sending to team members is refused locally with this message. */
  busyMessage: string | null;
};

type ComposerProps = {
  /** Sends the text with its idempotency key and the attached files' ids; throws (ApiError) when the server refuses. */
  onSend: (text: string, idempotencyKey: string, attachments: string[]) => Promise<void>;
  /** When set, sending is refused locally with this message (e.g. a run is still working). */
  busyMessage: string | null;
  /** Extra line under the field, e.g. that the next message answers the agent's question. */
  context?: string | null;
  /** `@` offers the owner's team members; with recipients picked, Send goes to them instead of the agent. */
  mentions: ComposerMentions;
};

/**
 * The message box. Enter is a newline (it picks while the @mention list is open); Cmd/Ctrl+Enter or the Send
 * button sends. What the person typed is never lost: it is cleared only after a successful send, and only if
 * it still equals what was sent. Files attach through the one attach control (a picker, a drop on the box, a
 * paste): each uploads to the chat's files at once, and Send waits until they are all in.
 */
export function Composer({ onSend, busyMessage, context, mentions }: ComposerProps) {
  const id = useId();
  const [draft, setDraft] = useState('');
  const [recipients, setRecipients] = useState<Recipient[]>([]);
  const [sending, setSending] = useState(false);
  const [sendError, setSendError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const keyed = useRef<KeyedDraft | null>(null);
  const mentionKey = useRef<KeyedDraft | null>(null);
  const inFlight = useRef(false);
  const draftRef = useRef(draft);
  const recipientsRef = useRef(recipients);
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  const attachments = useAttachments({ kind: 'conversation', id: mentions.conversationId }, { max: LIMITS.files.attachments });
  // The attachments are part of the draft: another set is another message, with a key of its own.
  const keyedAttachments = useRef('');
  useEffect(() => {
    draftRef.current = draft;
    recipientsRef.current = recipients;
  }, [draft, recipients]);

  const targets = useMentionTargets(mentions.conversationId);
  const picker = useMentionPicker<TargetOption>({
    textareaRef,
    text: draft,
    targets: targets.options,
    loading: targets.loading,
    error: targets.error,
    pickedKeys: recipients.map((r) => r.memberId),
    onDemand: targets.demand,
    onPick: ({ target, text }) => {
      setDraft(text);
      setRecipients((list) => addRecipient(list, { memberId: target.key, label: target.label }));
      setSendError(null);
      setNotice(null);
    },
  });

  const check = checkDraft(draft);
  const error = check.error ?? sendError;
  const toMembers = recipients.length > 0;

  async function submitToMembers() {
    if (attachments.state.items.length > 0) {
      setSendError('Attachments go to this agent only: remove them, or the recipients, first.');
      return false;
    }
    const attempt = await sendMentionDraft({
      draft: { text: draft, recipients },
      keyed: mentionKey.current,
      busyMessage: mentions.busyMessage,
      send: (text, memberIds, key) => {
        setSendError(null);
        return mentions.send(text, memberIds, key);
      },
      currentDraft: () => ({ text: draftRef.current, recipients: recipientsRef.current }),
    });
    mentionKey.current = attempt.keyed;
    if (attempt.outcome === 'sent') {
      setDraft(attempt.draft.text);
      setRecipients(attempt.draft.recipients);
      setNotice(mentionConfirmation(attempt.jobs));
      return true;
    }
    if (!check.error) setSendError(attempt.error);
    return false;
  }

  async function submitToAgent() {
    const ids = attachments.ids;
    if (keyedAttachments.current !== ids.join(' ')) keyed.current = null;
    keyedAttachments.current = ids.join(' ');
    const attempt = await sendDraft({
      text: draft,
      keyed: keyed.current,
      busyMessage: busyMessage ?? attachments.blocker,
      send: (text, key) => {
        setSendError(null);
        return onSend(text, key, ids);
      },
      currentDraft: () => draftRef.current,
    });
    keyed.current = attempt.keyed;
    if (attempt.outcome === 'sent') {
      setDraft(attempt.draft);
      attachments.markSent(ids);
      return true;
    }
    // An invalid draft already shows its error inline; only the other reasons need a message.
    if (!check.error) setSendError(attempt.error);
    return false;
  }

  async function submit() {
    // A ref, not state: two quick presses within one render must not start two sends.
    if (inFlight.current) return;
    inFlight.current = true;
    setSending(true);
    setNotice(null);
    const ok = await (toMembers ? submitToMembers() : submitToAgent());
    inFlight.current = false;
    setSending(false);
    if (!ok) textareaRef.current?.focus();
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    void submit();
  }

  const hintId = `${id}-hint`;
  const counterId = `${id}-counter`;
  const errorId = `${id}-error`;
  const noticeId = `${id}-notice`;
  const describedBy = [hintId, check.nearLimit ? counterId : null, error ? errorId : null].filter(Boolean).join(' ');

  return (
    <form
      onSubmit={onSubmit}
      onPaste={attachments.onPaste}
      {...attachments.dropProps}
      className={cn('space-y-1.5 rounded-md', dropHighlight(attachments.dragging))}
    >
      <MentionField
        id={id}
        label="Message"
        textareaRef={textareaRef}
        picker={picker}
        listLabel="Team members to mention"
        listTexts={LIST_TEXTS}
        onRetryList={targets.retry}
        recipients={recipients.map((r) => ({ key: r.memberId, label: r.label }))}
        onRemoveRecipient={(memberId) => {
          setRecipients((list) => removeRecipient(list, memberId));
          setSendError(null);
        }}
        value={draft}
        onValueChange={(value) => {
          setDraft(value);
          setSendError(null);
          setNotice(null);
        }}
        onSendShortcut={() => void submit()}
        invalid={Boolean(error)}
        describedBy={describedBy}
        className="max-h-[40vh]"
      />
      <AttachControl attachments={attachments} />
      {error ? (
        <p id={errorId} role="alert" className="text-sm break-words text-red-600 dark:text-red-400">
          {error}
        </p>
      ) : null}
      <p id={noticeId} role="status" className={cn('text-sm break-words text-emerald-700 dark:text-emerald-400', !notice && 'sr-only')}>
        {notice}
      </p>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="min-w-0 flex-1 space-y-0.5 text-xs text-zinc-500 dark:text-zinc-400">
          <p id={hintId}>
            {context ? `${context} ` : null}
            {toMembers
              ? 'Send queues a request to each recipient above instead of messaging this agent; results come back here. '
              : 'Type @ to mention a team member. '}
            Enter adds a new line; press Ctrl+Enter (⌘+Enter on a Mac) or Send to send. Drop or paste files to attach them.
          </p>
          <CharCounter id={counterId} text={draft} bound={LIMITS.message} onlyNearLimit className="block" />
        </div>
        <div className="flex items-center gap-2">
          <AttachButton attachments={attachments} />
          <Button type="submit" disabled={sending} aria-describedby={error ? errorId : undefined}>
            {sending ? 'Sending…' : toMembers ? 'Send to members' : 'Send'}
          </Button>
        </div>
      </div>
    </form>
  );
}
