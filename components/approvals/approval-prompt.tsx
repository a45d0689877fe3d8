'use client';

import { useId, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Textarea } from '@/components/ui/input';
import { cn } from '@/components/ui/cn';
import { prettyValue, previewValue } from '@/lib/tool-value-format';
import { ApiError } from '@/lib/api-client';
import { approvalValue, noteError, type ApprovalRequest, type ApprovalValue } from './approval';

type Props = {
  interrupt: ApprovalRequest;
  /** Sends the decision; a thrown error is shown under the buttons and the note is kept. */
  onAnswer: (value: ApprovalValue) => Promise<void>;
  /** The note, when its owner keeps it (a team keeps typed answers by job id, so live updates never lose them). */
  note?: string;
  onNoteChange?: (note: string) => void;
  /** Who wants to run the tool, as the sentence's subject: "The agent" in a chat, the member's handle on a team card. */
  actor?: string;
  /** The heading's level in its page: 2 on the chat page, 4 inside a team's job card (whose title is an h3). */
  headingLevel?: 2 | 3 | 4;
  /** Wording for a refused or failed answer. */
  errorMessage?: (err: unknown) => string;
  className?: string;
};

function defaultErrorMessage(err: unknown): string {
  if (!(err instanceof ApiError)) return 'Sending your answer failed. Your note is kept; try again.';
  return Object.values(err.fields)[0] ?? err.message;
}

/**
 * A tool call waiting for the person's approval: the tool, its arguments, Approve / Decline and an optional note.
 * The one approval control, used by the chat and by a team's job card; both send `{ approved, note? }`.
 * The tool name and arguments are untrusted (a model chose them): they are only ever rendered as text.
 */
export function ApprovalPrompt({
  interrupt,
  onAnswer,
  note: keptNote,
  onNoteChange,
  actor = 'The agent',
  headingLevel = 2,
  errorMessage = defaultErrorMessage,
  className,
}: Props) {
  const id = useId();
  const [ownNote, setOwnNote] = useState('');
  const note = keptNote ?? ownNote;
  const setNote = onNoteChange ?? setOwnNote;
  const [submitting, setSubmitting] = useState<null | 'approve' | 'decline'>(null);
  const [error, setError] = useState<string | null>(null);
  const noteProblem = noteError(note);
  const blocked = submitting !== null || noteProblem !== null;

  async function answer(approved: boolean) {
    if (blocked) return;
    setSubmitting(approved ? 'approve' : 'decline');
    setError(null);
    try {
      await onAnswer(approvalValue(approved, note));
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setSubmitting(null);
    }
  }

  const Heading = `h${headingLevel}` as const;
  const headingId = `${id}-heading`;
  // Several calls can wait at once (one per job card): each button says which call it answers.
  const preview = previewValue(interrupt.args);
  // An MCP tool goes by its own name (the model's name for it is a generated one), its server named beside it.
  const tool = interrupt.mcp ? interrupt.mcp.tool : interrupt.tool;
  const which = ` ${tool}${preview ? ` ${preview}` : ''}`;
  return (
    <section
      aria-labelledby={headingId}
      className={cn(
        'min-w-0 space-y-3 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-800 dark:bg-amber-950/40',
        className,
      )}
    >
      <Heading id={headingId} className="font-semibold break-words text-amber-900 dark:text-amber-100">
        Approval needed: <span className="font-mono break-all">{tool}</span>
        {interrupt.mcp ? <span className="font-normal"> of MCP server {interrupt.mcp.server}</span> : null}
      </Heading>
      <p className="break-words text-amber-900 dark:text-amber-200">
        {actor} wants to run this tool. It waits until you approve or decline.
      </p>
      <div>
        <div className="text-xs font-semibold text-amber-900 dark:text-amber-200">Arguments</div>
        <pre className="mt-1 max-h-64 overflow-y-auto rounded-md bg-white p-2 font-mono text-xs whitespace-pre-wrap break-words text-zinc-800 [overflow-wrap:anywhere] dark:bg-zinc-950 dark:text-zinc-200">
          {prettyValue(interrupt.args) || '(none)'}
        </pre>
      </div>
      <div className="space-y-1">
        <label htmlFor={`${id}-note`} className="block text-sm font-medium text-zinc-800 dark:text-zinc-200">
          Note (optional)
        </label>
        <Textarea
          id={`${id}-note`}
          rows={2}
          value={note}
          onChange={(e) => setNote(e.target.value)}
          aria-invalid={noteProblem ? true : undefined}
          aria-describedby={noteProblem ? `${id}-note-error` : undefined}
        />
        {noteProblem ? (
          <p id={`${id}-note-error`} role="alert" className="text-sm text-red-600 dark:text-red-400">
            {noteProblem}
          </p>
        ) : null}
      </div>
      {error ? (
        <p role="alert" className="text-sm break-words text-red-600 dark:text-red-400">
          {error}
        </p>
      ) : null}
      {/* aria-disabled, not disabled, while sending: a disabled button would drop the keyboard focus to the page. */}
      <div className="flex flex-wrap gap-2">
        <Button onClick={() => void answer(true)} aria-disabled={blocked || undefined}>
          {submitting === 'approve' ? 'Approving…' : 'Approve'}
          <span className="sr-only">{which}</span>
        </Button>
        <Button variant="secondary" onClick={() => void answer(false)} aria-disabled={blocked || undefined}>
          {submitting === 'decline' ? 'Declining…' : 'Decline'}
          <span className="sr-only">{which}</span>
        </Button>
      </div>
      <p role="status" className="sr-only">
        {submitting === 'approve' ? `Sending your approval of ${tool}…` : submitting === 'decline' ? `Sending your decline of ${tool}…` : ''}
      </p>
    </section>
  );
}
