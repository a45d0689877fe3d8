'use client';

import { memo, useRef, useState, type MouseEvent } from 'react';
import { LiveOutputBox } from '@/components/live-output/live-output-box';
import { jobOutputKey } from '@/components/live-output/store';
import { CitationList } from '@/components/receipts/citation-list';
import { SentFiles } from '@/components/files/sent-files';
import { SetupChangedBadge } from '@/components/runs/run-setup';
import { RunStepsDisclosure } from '@/components/runs/run-steps-disclosure';
import { Badge } from '@/components/ui/misc';
import { Button } from '@/components/ui/button';
import { cn } from '@/components/ui/cn';
import { useFocusAfterChange } from '@/components/ui/focus-return';
import { Time } from '@/components/ui/time';
import { ApiError } from '@/lib/api-client';
import {
  JOB_STATUS_BADGE,
  canCancel,
  canRetry,
  deliveryLine,
  firstWords,
  isLongText,
  jobActor,
  jobHeadline,
} from './feed';
import type { ApiJob, ApiMember, ApiWaitReason } from '@/lib/types/team';
import { waitReasonLabel } from '@/lib/wait-reason-label';
import { scrollBehavior } from '@/lib/motion';
import { JobRetryControls, type RetryTarget } from './job-retry-controls';
import { jobRunParts } from './job-run-parts';
import { JobAnswerForm, type AnswerBody } from './job-answer-form';
import { stopReasonLabel } from '@/lib/stop-reason-label';
import { ButtonLink } from '@/components/ui/button-link';
import { textLink } from '@/components/ui/button-variants';

export const jobElementId = (jobId: string) => `job-${jobId}`;

/** What the card announces once the person's answer is in. */
function answerSentNotice(body: AnswerBody): string {
  if ('response' in body) {
    const approved = (body.response as { approved?: unknown } | null)?.approved;
    if (approved === true) return 'Approved. The request continues.';
    if (approved === false) return 'Declined. The request continues without that tool call.';
  }
  return 'Answer sent. The request continues.';
}

export type JobCardProps = {
  job: ApiJob;
  /** The job this card follows up (a handoff's parent, a receipt's request), if it is in the feed. */
  linked: ApiJob | null;
  linkedMissing: boolean;
  members: ReadonlyMap<string, ApiMember>;
  detailsOpen: boolean;
  textExpanded: boolean;
  answer: string;
  onToggleDetails: (jobId: string) => void;
  onToggleText: (jobId: string) => void;
  onAnswerChange: (jobId: string, value: string) => void;
  onAnswer: (jobId: string, body: AnswerBody) => Promise<void>;
  onCancel: (jobId: string) => Promise<void>;
  /** Why the job waits, while it is queued (or an answer waits for its slot). */
  waitReason?: ApiWaitReason;
  /** Retry a failed or cancelled request, or send it to another member; absent: not offered. */
  onRetry?: (target: RetryTarget) => Promise<void>;
};

function scrollToJob(event: MouseEvent<HTMLAnchorElement>, jobId: string) {
  const target = document.getElementById(jobElementId(jobId));
  if (!target) return;
  event.preventDefault();
  target.scrollIntoView({ block: 'center', behavior: scrollBehavior() });
  target.focus({ preventScroll: true });
}

/** One request (or result receipt) with its status, text and — when finished — its result, as plain text. */
export const JobCard = memo(function JobCard({
  job,
  linked,
  linkedMissing,
  members,
  detailsOpen,
  textExpanded,
  answer,
  onToggleDetails,
  onToggleText,
  onAnswerChange,
  onAnswer,
  onCancel,
  waitReason,
  onRetry,
}: JobCardProps) {
  const [cancelState, setCancelState] = useState<{ pending: boolean; error: string | null }>({ pending: false, error: null });
  const [answerNotice, setAnswerNotice] = useState('');
  const cardRef = useRef<HTMLElement>(null);
  const titleRef = useRef<HTMLHeadingElement>(null);
  const statusRef = useRef<HTMLSpanElement>(null);
  // Cancel goes away with the status it acts on: once the status has changed, focus moves to it, not <body>.
  const focusStatusAfterChange = useFocusAfterChange(job.status, statusRef, cardRef);
  const { from, to } = jobHeadline(job, members);
  const actor = jobActor(job, members);
  const status = JOB_STATUS_BADGE[job.status];
  const delivery = deliveryLine(job, members);
  const text = job.text ?? '';
  const long = isLongText(text);
  const titleId = `${jobElementId(job.id)}-title`;
  const detailsId = `${jobElementId(job.id)}-details`;
  const textId = `${jobElementId(job.id)}-text`;
  const isReceipt = job.kind === 'receipt';

  const cancel = async () => {
    if (cancelState.pending) return;
    const statusBefore = job.status;
    setCancelState({ pending: true, error: null });
    try {
      await onCancel(job.id);
      setCancelState({ pending: false, error: null });
      focusStatusAfterChange(statusBefore);
    } catch (e) {
      setCancelState({ pending: false, error: e instanceof ApiError ? e.message : 'Cancel failed; try again.' });
    }
  };

  // Once the answer is in, its form goes away: the focus moves to this card's title (unless the person has moved on
  // elsewhere meanwhile), and the card says the answer was sent.
  const answerHere = async (jobId: string, body: AnswerBody) => {
    setAnswerNotice('');
    await onAnswer(jobId, body);
    setAnswerNotice(answerSentNotice(body));
    const active = document.activeElement;
    if (!active || active === document.body || cardRef.current?.contains(active)) titleRef.current?.focus();
  };

  return (
    <article
      ref={cardRef}
      id={jobElementId(job.id)}
      tabIndex={-1}
      aria-labelledby={titleId}
      className={cn(
        'scroll-mt-4 rounded-lg border bg-white p-3 focus:outline-2 focus:outline-indigo-500 dark:bg-zinc-900',
        job.status === 'waiting_input' ? 'border-amber-300 dark:border-amber-800' : 'border-zinc-200 dark:border-zinc-800',
        isReceipt && 'ml-4 sm:ml-8',
      )}
    >
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <h3
          id={titleId}
          ref={titleRef}
          tabIndex={-1}
          className="min-w-0 break-words rounded-sm text-sm font-semibold text-zinc-900 focus:outline-2 focus:outline-offset-2 focus:outline-indigo-500 dark:text-zinc-100"
        >
          {from} → {to}
        </h3>
        <span ref={statusRef} tabIndex={-1} className="rounded-full focus:outline-2 focus:outline-offset-2 focus:outline-indigo-500">
          <span className="sr-only">Status: </span>
          <Badge tone={status.tone}>
            {job.stopReason && (job.status === 'completed' || job.status === 'failed') ? stopReasonLabel(job.status, job.stopReason, status.label) : status.label}
          </Badge>
        </span>
        <Time iso={job.createdAt} format="when" className="ml-auto text-xs text-zinc-500 dark:text-zinc-400" />
      </div>
      {job.run?.setupChanges?.length ? (
        <div className="mt-1">
          <SetupChangedBadge changes={job.run.setupChanges} />
        </div>
      ) : null}

      {linked || linkedMissing ? (
        <p className="mt-1 break-words text-xs text-zinc-600 dark:text-zinc-400">
          {isReceipt ? 'Result of: ' : job.retryOf && !job.parentId ? 'Retry of: ' : 'Follow-up to: '}
          {linked ? (
            <a href={`#${jobElementId(linked.id)}`} onClick={(e) => scrollToJob(e, linked.id)} className={textLink}>
              {firstWords(linked.text ?? '') || 'an earlier request'}
            </a>
          ) : (
            <span>an earlier request</span>
          )}
        </p>
      ) : null}

      {text ? (
        <div className="mt-2">
          {isReceipt ? <p className="text-xs font-medium text-zinc-500 dark:text-zinc-400">Returned result</p> : null}
          <p
            id={textId}
            className={cn(
              'whitespace-pre-wrap break-words text-sm text-zinc-800 dark:text-zinc-200',
              long && !textExpanded && 'line-clamp-4',
            )}
          >
            {text}
          </p>
          {long ? (
            <button
              type="button"
              aria-expanded={textExpanded}
              aria-controls={textId}
              onClick={() => onToggleText(job.id)}
              className={cn(textLink, 'mt-1 text-xs')}
            >
              {textExpanded ? 'Show less' : 'Show full request'}
            </button>
          ) : null}
          {job.attachments?.length ? <SentFiles attachments={job.attachments} className="mt-1" /> : null}
        </div>
      ) : null}

      {job.status === 'waiting_input' ? (
        <div className="mt-3">
          {job.waiting ? (
            <JobAnswerForm jobId={job.id} waiting={job.waiting} member={actor} value={answer} onChange={onAnswerChange} onSubmit={answerHere} />
          ) : (
            <p className="text-sm text-amber-800 dark:text-amber-200">Needs input — open the conversation to respond.</p>
          )}
        </div>
      ) : null}
      <p role="status" className="sr-only">
        {answerNotice}
      </p>

      {/* While it runs: the text its member is writing (streaming providers and a paced scripted model); the result replaces it. */}
      {job.status === 'running' ? <LiveOutputBox outputKey={jobOutputKey(job.id)} author={actor.replace(/^@/, '')} /> : null}

      {job.result ? (
        <div className="mt-3 rounded-md bg-zinc-50 p-2 dark:bg-zinc-950/60">
          <p className="text-xs font-medium text-zinc-500 dark:text-zinc-400">{isReceipt ? 'Reply' : 'Result'}</p>
          <p className="whitespace-pre-wrap break-words text-sm text-zinc-900 dark:text-zinc-100">{job.result}</p>
          {job.resultTruncated ? (
            <p className="mt-1 text-xs text-amber-800 dark:text-amber-300">
              Result shortened — open the conversation for the full answer
            </p>
          ) : null}
          {job.citations ? <CitationList citations={job.citations} className="mt-2" /> : null}
        </div>
      ) : null}
      {job.error ? (
        <p className="mt-3 whitespace-pre-wrap break-words rounded-md bg-red-50 p-2 text-sm text-red-800 dark:bg-red-950/50 dark:text-red-200">
          <span className="font-medium">Error: </span>
          {job.error}
        </p>
      ) : null}
      {delivery ? <p className="mt-2 text-xs text-zinc-600 dark:text-zinc-400">{delivery}</p> : null}
      {waitReason && (job.status === 'queued' || job.status === 'resuming' || (job.status === 'running' && waitReason.kind === 'provider')) ? (
        <p className="mt-2 text-xs text-zinc-600 dark:text-zinc-400">
          <span className="sr-only">Why it waits: </span>
          {waitReasonLabel(waitReason)}
          {'jobId' in waitReason ? (
            <>
              {' — '}
              <a href={`#${jobElementId(waitReason.jobId)}`} onClick={(e) => scrollToJob(e, waitReason.jobId)} className={textLink}>
                {waitReason.kind === 'your_answer' ? 'answer it' : 'show it'}
              </a>
            </>
          ) : null}
        </p>
      ) : null}
      {onRetry && canRetry(job) ? <JobRetryControls job={job} members={members} onRetry={onRetry} /> : null}

      <div className="mt-2">
        <button
          type="button"
          aria-expanded={detailsOpen}
          aria-controls={detailsId}
          onClick={() => onToggleDetails(job.id)}
          className="inline-flex items-center gap-1 rounded text-xs font-medium text-zinc-600 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-zinc-400 dark:hover:text-zinc-100"
        >
          <span aria-hidden className={cn('inline-block transition-transform', detailsOpen && 'rotate-90')}>
            ▸
          </span>
          Task details
        </button>
        {detailsOpen ? (
          <div id={detailsId} className="mt-2 space-y-2 border-t border-zinc-200 pt-2 text-xs text-zinc-600 dark:border-zinc-800 dark:text-zinc-400">
            <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
              <dt>Kind</dt>
              <dd>{isReceipt ? 'Result receipt' : job.sourceMemberId ? 'Handoff' : 'Request'}</dd>
              <dt>Created</dt>
              <dd>
                <Time iso={job.createdAt} format="full" />
              </dd>
              {job.completedAt ? (
                <>
                  <dt>Finished</dt>
                  <dd>
                    <Time iso={job.completedAt} format="full" />
                  </dd>
                </>
              ) : null}
              <dt>Job</dt>
              <dd className="break-all font-mono">{job.id}</dd>
            </dl>
            <div className="flex flex-wrap items-center gap-2">
              <ButtonLink href={`/conversations/${job.conversationId}`} variant="secondary" size="sm">
                Open conversation
              </ButtonLink>
              {canCancel(job.status) ? (
                <Button variant="danger" size="sm" onClick={() => void cancel()} pending={cancelState.pending}>
                  {cancelState.pending ? 'Cancelling…' : 'Cancel'}
                </Button>
              ) : null}
            </div>
            {cancelState.error ? (
              <p role="alert" className="text-sm text-red-600 dark:text-red-400">
                {cancelState.error}
              </p>
            ) : null}
          </div>
        ) : null}
      </div>
      {/* The job's runs: their steps (live while one works), token totals and setup; one per answer it went on after. */}
      {job.run
        ? jobRunParts(job.run).map((part) => <RunStepsDisclosure key={part.runId} runId={part.runId} label={part.label} heading={part.heading} className="mt-1" />)
        : null}
    </article>
  );
});
