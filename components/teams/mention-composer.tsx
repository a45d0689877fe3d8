'use client';

import { requestText } from '@/lib/mentions/request-text';
import { useId, useMemo, useRef, useState, type Dispatch, type RefObject, type SetStateAction } from 'react';
import { AttachButton, AttachControl, dropHighlight } from '@/components/files/attach-control';
import { useAttachments } from '@/components/files/use-attachments';
import { MentionField } from '@/components/mentions/mention-field';
import { useMentionPicker } from '@/components/mentions/use-mention-picker';
import { Button } from '@/components/ui/button';
import { cn } from '@/components/ui/cn';
import { CharCounter } from '@/components/ui/char-counter';
import { ApiError } from '@/lib/api-client';
import { draftStillEquals, type KeyedDraft } from '@/lib/idempotency/draft-key';
import { LIMITS } from '@/lib/limits';
import type { ListTexts, MentionOption } from '@/lib/mentions/picker';
import { sendStep } from '@/lib/send-step';
import { measureText } from '@/lib/text-bounds';
import type { ApiMember } from '@/lib/types/team';

export type ComposerDraft = { text: string; memberIds: string[] };
export const emptyDraft: ComposerDraft = { text: '', memberIds: [] };

const LIST_TEXTS: ListTexts = {
  loading: 'Loading members…',
  none: 'This team has no members.',
  'all-picked': 'Every member is already a recipient.',
  'no-match': 'No member matches.',
  error: 'Could not load the members',
};

type MemberOption = MentionOption & { member: ApiMember };

type Props = {
  /** The team: attached files upload to its workspace. */
  teamId: string;
  members: ApiMember[];
  draft: ComposerDraft;
  setDraft: Dispatch<SetStateAction<ComposerDraft>>;
  /** Sends one request to every recipient, with the attached files' ids; rejects with the server's error. */
  onSend: (draft: ComposerDraft, draftKey: string, attachments: string[]) => Promise<void>;
  textareaRef: RefObject<HTMLTextAreaElement | null>;
};

/**
 * "Message to team", on the one @mention composer (components/mentions): recipients are chips picked with `@` or
 * "@ Choose members" — a name typed as plain text routes nothing. Enter inserts a newline (it picks while the list
 * is open); Ctrl/⌘+Enter or Send sends. Files attach through the one attach control (a picker, a drop, a paste) into
 * the team's workspace, and go with the request as its attachments.
 */
export function MentionComposer({ teamId, members, draft, setDraft, onSend, textareaRef }: Props) {
  const id = useId();
  const hintId = useId();
  const counterId = useId();
  const errorId = useId();
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const draftKey = useRef<KeyedDraft | null>(null);
  const attachments = useAttachments({ kind: 'team', id: teamId }, { max: LIMITS.files.attachments });
  // The attachments are part of the draft: another set is another request, with a key of its own.
  const keyedAttachments = useRef('');

  const options = useMemo(() => members.map((m): MemberOption => ({ key: m.id, label: m.name, detail: m.agentName, member: m })), [members]);
  const byId = useMemo(() => new Map(members.map((m) => [m.id, m])), [members]);

  const picker = useMentionPicker<MemberOption>({
    textareaRef,
    text: draft.text,
    targets: options,
    pickedKeys: draft.memberIds,
    onPick: ({ target, text }) => {
      setError(null);
      setNotice(null);
      setDraft((d) => ({ text, memberIds: d.memberIds.includes(target.key) ? d.memberIds : [...d.memberIds, target.key] }));
    },
  });

  const send = async () => {
    if (sending) return;
    setNotice(null);
    const sent: ComposerDraft = { text: draft.text, memberIds: [...draft.memberIds] };
    if (sent.memberIds.length === 0) {
      setError('Choose at least one member');
      picker.browse();
      return;
    }
    if (attachments.blocker) {
      setError(attachments.blocker);
      return;
    }
    const ids = attachments.ids;
    if (keyedAttachments.current !== ids.join(' ')) draftKey.current = null;
    keyedAttachments.current = ids.join(' ');
    setError(null);
    setSending(true);
    // Checked before any request: an over-long message is refused there, and the text stays.
    const step = await sendStep({
      draft: sent,
      bound: LIMITS.task,
      blankError: 'Write a message for the recipients first.',
      keyed: draftKey.current,
      send: (d, key) => {
        picker.close();
        return onSend({ text: requestText(d.text), memberIds: [...d.memberIds] }, key, ids);
      },
      errorMessage: (e) => (e instanceof ApiError ? (e.fields.text ?? e.fields.memberIds ?? e.message) : 'Sending failed; try again.'),
    });
    setSending(false);
    draftKey.current = step.keyed;
    if (step.outcome !== 'sent') {
      setError(step.error);
      if (step.outcome === 'refused') textareaRef.current?.focus();
      return;
    }
    setDraft((current) => (draftStillEquals(current, step.sent) ? emptyDraft : current));
    attachments.markSent(ids);
    const to = sent.memberIds.map((memberId) => `@${byId.get(memberId)?.name ?? 'member'}`).join(', ');
    setNotice(`Sent to ${to}`);
  };

  const describedBy = [hintId, counterId, error ? errorId : null].filter(Boolean).join(' ');

  return (
    <div onPaste={attachments.onPaste} {...attachments.dropProps} className={cn('space-y-2 rounded-md', dropHighlight(attachments.dragging))}>
      <MentionField
        id={id}
        label="Message to team"
        labelHidden
        textareaRef={textareaRef}
        picker={picker}
        listLabel="Members"
        listTexts={LIST_TEXTS}
        recipients={draft.memberIds.map((memberId) => ({ key: memberId, label: byId.get(memberId)?.name ?? 'Unknown member' }))}
        onRemoveRecipient={(memberId) => setDraft((d) => ({ ...d, memberIds: d.memberIds.filter((m) => m !== memberId) }))}
        noRecipientsHint="No recipients yet — type @ or choose members."
        value={draft.text}
        onValueChange={(text) => {
          setDraft((d) => ({ ...d, text }));
          if (error) setError(null);
        }}
        onSendShortcut={() => void send()}
        placeholder="Message to team — type @ to add a recipient"
        invalid={measureText(draft.text, LIMITS.task).over}
        describedBy={describedBy}
      />

      <AttachControl attachments={attachments} />
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="min-w-0 space-y-0.5">
          <CharCounter id={counterId} text={draft.text} bound={LIMITS.task} className="block" />
          <p id={hintId} className="text-xs text-zinc-600 dark:text-zinc-400">
            Enter adds a line · Ctrl/⌘+Enter sends · drop or paste files to attach
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          <AttachButton attachments={attachments} />
          <Button
            variant="secondary"
            size="sm"
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => (picker.browsing ? picker.close() : picker.browse())}
            aria-expanded={picker.browsing}
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
