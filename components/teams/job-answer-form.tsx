'use client';

import { useId, useRef, useState, type FormEvent } from 'react';
import { ApprovalPrompt } from '@/components/approvals/approval-prompt';
import type { ApprovalRequest, ApprovalValue } from '@/components/approvals/approval';
import { Button } from '@/components/ui/button';
import { CharCounter } from '@/components/ui/char-counter';
import { Textarea } from '@/components/ui/input';
import { isSendShortcut } from '@/lib/mentions/send-shortcut';
import { cn } from '@/components/ui/cn';
import { LIMITS } from '@/lib/limits';
import { boundedTextProblem, measureText } from '@/lib/text-bounds';
import { approvalRequest, parseInterruptResponse, respondErrorMessage, responseHint } from './interrupt-response';
import { newClientId } from '@/lib/idempotency/client-id';
import { forgetKeyAfterSuccess, keyForDraft, type KeyedDraft } from '@/lib/idempotency/draft-key';
import type { ApiWaiting } from '@/lib/types/team';

export type AnswerBody = { answer: string; answerKey: string } | { response: unknown; answerKey: string };

type Props = {
  jobId: string;
  waiting: ApiWaiting;
  /** The member the request went to, e.g. "@Calculator": who wants to run a tool waiting for approval. */
  member?: string;
  /** The typed answer (or approval note) lives with the workspace (keyed by job id), so live updates never lose it. */
  value: string;
  onChange: (jobId: string, value: string) => void;
  onSubmit: (jobId: string, body: AnswerBody) => Promise<void>;
  /** The approval heading's level: 4 inside a job card (whose title is an h3), 3 in an Inbox card (an h2). */
  headingLevel?: 3 | 4;
};

/**
 * What a waiting job needs from the person: Approve / Decline for a tool call that needs approval (the chat's own
 * control, sending `{ approved, note? }` as the response), a text answer to a clarification question, or an
 * explicit JSON response to any other graph interrupt.
 */
export function JobAnswerForm(props: Props) {
  const approval = approvalRequest(props.waiting);
  return approval ? <JobApproval {...props} approval={approval} /> : <TypedAnswerForm {...props} />;
}

function JobApproval({ jobId, waiting, member, value, onChange, onSubmit, headingLevel = 4, approval }: Props & { approval: ApprovalRequest }) {
  const answerKey = useRef<KeyedDraft | null>(null);
  const send = async (decision: ApprovalValue) => {
    // One key per interrupt, whichever button (as in the chat): a retry after a lost response is the same answer.
    answerKey.current = keyForDraft(answerKey.current, JSON.stringify(waiting), newClientId);
    const key = answerKey.current.key;
    await onSubmit(jobId, { response: decision, answerKey: key });
    answerKey.current = forgetKeyAfterSuccess(answerKey.current, key);
  };
  return (
    <ApprovalPrompt
      interrupt={approval}
      onAnswer={send}
      note={value}
      onNoteChange={(note) => onChange(jobId, note)}
      actor={member}
      headingLevel={headingLevel}
      errorMessage={respondErrorMessage}
    />
  );
}

/** A clarification's text answer, or a JSON response; both are checked in the browser first and the typed text is kept on any error. */
function TypedAnswerForm({ jobId, waiting, value, onChange, onSubmit }: Props) {
  const fieldId = useId();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const answerKey = useRef<KeyedDraft | null>(null);
  const isClarification = waiting.type === 'clarification';
  const hint = responseHint(waiting);
  const measure = measureText(value, LIMITS.answer);
  // Past its bound the field is marked invalid as the composers' are, before any Send; a JSON response has bytes only.
  const over = isClarification ? measure.over : measure.bytes > LIMITS.interruptResponse.maxBytes;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (pending) return;
    let body: Omit<AnswerBody, 'answerKey'>;
    if (isClarification) {
      const problem = boundedTextProblem(value, LIMITS.answer, 'Answer');
      if (problem) return setError(problem);
      body = { answer: value };
    } else {
      const parsed = parseInterruptResponse(value);
      if (!parsed.ok) return setError(parsed.error);
      body = { response: parsed.value };
    }
    setError(null);
    // The same answer keeps its key, so a retry after a lost response can't answer twice.
    answerKey.current = keyForDraft(answerKey.current, JSON.stringify(body), newClientId);
    const key = answerKey.current.key;
    setPending(true);
    try {
      await onSubmit(jobId, { ...body, answerKey: key } as AnswerBody);
      answerKey.current = forgetKeyAfterSuccess(answerKey.current, key);
    } catch (e) {
      setError(respondErrorMessage(e));
    } finally {
      setPending(false);
    }
  };

  return (
    <form onSubmit={submit} className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 dark:border-amber-900 dark:bg-amber-950/40">
      {waiting.type === 'clarification' ? (
        <div>
          <p className="text-xs font-medium text-amber-900 dark:text-amber-200">Question</p>
          <p className="whitespace-pre-wrap break-words text-sm text-zinc-900 dark:text-zinc-100">{waiting.question}</p>
        </div>
      ) : (
        <div>
          <p className="text-xs font-medium text-amber-900 dark:text-amber-200">
            The run is paused for an explicit response. Inspect the request below (or in the conversation) and reply with JSON.
          </p>
          <pre className="mt-1 max-h-60 overflow-auto whitespace-pre-wrap break-all rounded bg-white p-2 text-xs text-zinc-800 dark:bg-zinc-900 dark:text-zinc-200">
            {JSON.stringify(waiting.payload, null, 2) ?? String(waiting.payload)}
          </pre>
        </div>
      )}
      <label htmlFor={fieldId} className="block text-sm font-medium text-zinc-800 dark:text-zinc-200">
        {isClarification ? 'Your answer' : 'Response (JSON)'}
      </label>
      {hint ? (
        <p id={`${fieldId}-hint`} className="text-xs text-zinc-700 dark:text-zinc-300">
          {hint}
        </p>
      ) : null}
      <Textarea
        id={fieldId}
        rows={isClarification ? 2 : 4}
        value={value}
        spellCheck={isClarification}
        className={cn(!isClarification && 'font-mono text-xs')}
        aria-invalid={error || over ? true : undefined}
        aria-describedby={`${hint ? `${fieldId}-hint ` : ''}${fieldId}-counter${error ? ` ${fieldId}-error` : ''}`}
        onChange={(e) => {
          onChange(jobId, e.target.value);
          if (error) setError(null);
        }}
        // Ctrl/⌘+Enter sends, as in both composers.
        onKeyDown={(e) => {
          if (!isSendShortcut({ key: e.key, metaKey: e.metaKey, ctrlKey: e.ctrlKey, isComposing: e.nativeEvent.isComposing })) return;
          e.preventDefault();
          e.currentTarget.form?.requestSubmit();
        }}
      />
      <div className="flex flex-wrap items-center justify-between gap-2">
        {isClarification ? (
          <CharCounter id={`${fieldId}-counter`} text={value} bound={LIMITS.answer} />
        ) : (
          // A JSON response is bounded in bytes only.
          <p id={`${fieldId}-counter`} className={cn('text-xs tabular-nums', over ? 'font-medium text-red-700 dark:text-red-300' : 'text-zinc-600 dark:text-zinc-400')}>
            {`${measure.bytes.toLocaleString('en-US')} / ${LIMITS.interruptResponse.maxBytes.toLocaleString('en-US')} bytes`}
          </p>
        )}
        {/* aria-disabled, not disabled, while sending: a disabled button would drop the keyboard focus to the page. */}
        <Button type="submit" size="sm" aria-disabled={pending || undefined}>
          {pending ? 'Sending…' : isClarification ? 'Send answer' : 'Send response'}
        </Button>
      </div>
      {error ? (
        <p id={`${fieldId}-error`} role="alert" className="text-sm text-red-600 dark:text-red-400">
          {error}
        </p>
      ) : null}
      <p role="status" className="sr-only">
        {pending ? 'Sending your answer…' : ''}
      </p>
    </form>
  );
}
