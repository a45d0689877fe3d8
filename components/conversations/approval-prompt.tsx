'use client';

import { useId, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Textarea } from '@/components/ui/input';
import { approvalValue, noteError, type ApprovalValue } from './approval';
import { sendErrorMessage } from './errors';
import { prettyValue } from './format';
import type { ApprovalInterrupt } from './run-state';

/** A tool call waiting for the person's approval: the tool, its arguments, Approve / Decline and an optional note. */
export function ApprovalPrompt({
  interrupt,
  onAnswer,
}: {
  interrupt: ApprovalInterrupt;
  onAnswer: (value: ApprovalValue) => Promise<void>;
}) {
  const id = useId();
  const [note, setNote] = useState('');
  const [submitting, setSubmitting] = useState<null | 'approve' | 'decline'>(null);
  const [error, setError] = useState<string | null>(null);
  const noteProblem = noteError(note);

  async function answer(approved: boolean) {
    if (noteProblem || submitting) return;
    setSubmitting(approved ? 'approve' : 'decline');
    setError(null);
    try {
      await onAnswer(approvalValue(approved, note));
    } catch (err) {
      setError(sendErrorMessage(err));
    } finally {
      setSubmitting(null);
    }
  }

  const headingId = `${id}-heading`;
  return (
    <section
      aria-labelledby={headingId}
      className="space-y-3 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-800 dark:bg-amber-950/40"
    >
      <h2 id={headingId} className="font-semibold text-amber-900 dark:text-amber-100">
        Approval needed: <span className="font-mono break-all">{interrupt.tool}</span>
      </h2>
      <p className="text-amber-900 dark:text-amber-200">The agent wants to run this tool. It waits until you approve or decline.</p>
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
      <div className="flex flex-wrap gap-2">
        <Button onClick={() => void answer(true)} disabled={submitting !== null || noteProblem !== null}>
          {submitting === 'approve' ? 'Approving…' : 'Approve'}
        </Button>
        <Button variant="secondary" onClick={() => void answer(false)} disabled={submitting !== null || noteProblem !== null}>
          {submitting === 'decline' ? 'Declining…' : 'Decline'}
        </Button>
      </div>
    </section>
  );
}
