'use client';

import { useLayoutEffect, useMemo, useRef } from 'react';
import { Button } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/misc';
import { linkedJobId } from './feed';
import type { ApiJob, ApiWaitReason } from '@/lib/types/team';
import { JobCard, type JobCardProps } from './job-card';

/** What every card gets alike: the roster and what the reader's actions do (the rest is each job's own). */
export type SharedCardProps = Omit<JobCardProps, 'job' | 'linked' | 'linkedMissing' | 'detailsOpen' | 'textExpanded' | 'answer' | 'waitReason'>;

type Props = {
  /** Oldest first. */
  jobs: ApiJob[];
  totalJobs: number;
  /** Older history exists on the server: scrolling to the top (or the button there) reads the next page. */
  hasOlder: boolean;
  loadingOlder: boolean;
  onLoadOlder: () => void;
  openDetails: Readonly<Record<string, boolean>>;
  expandedText: Readonly<Record<string, boolean>>;
  answers: Readonly<Record<string, string>>;
  /** Why each queued job waits, by job id (GET /teams/:id/waiting). */
  waitReasons?: Readonly<Record<string, ApiWaitReason>>;
  /** A feed filter is on (the empty state and the count speak of matches). */
  filtered?: boolean;
  cardProps: SharedCardProps;
};

const BOTTOM_SLACK_PX = 40;
/** How close to the top scrolling starts reading older history. */
const TOP_SLACK_PX = 120;

/**
 * Every request paired with its result, oldest at the top. Cards are keyed by job id and their open/typed
 * state lives outside the fetched data, so live updates replace data without touching what the reader did.
 * New activity scrolls into view only when the reader is already at the bottom; older history read on scroll-back
 * is added above without moving what the reader is looking at.
 */
export function ActivityFeed({ jobs, totalJobs, hasOlder, loadingOlder, onLoadOlder, openDetails, expandedText, answers, filtered = false, waitReasons, cardProps }: Props) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const before = useRef<{ firstId: string | undefined; height: number }>({ firstId: undefined, height: 0 });
  const byId = useMemo(() => new Map(jobs.map((j) => [j.id, j])), [jobs]);

  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const firstId = jobs[0]?.id;
    if (atBottom.current) el.scrollTop = el.scrollHeight;
    else if (before.current.firstId !== undefined && firstId !== before.current.firstId) el.scrollTop += el.scrollHeight - before.current.height;
    before.current = { firstId, height: el.scrollHeight };
  }, [jobs]);

  return (
    <section aria-labelledby="activity-heading" className="min-w-0">
      <h2 id="activity-heading" className="mb-2 text-sm font-semibold text-zinc-800 dark:text-zinc-200">
        Activity
      </h2>
      {jobs.length === 0 && filtered ? (
        <EmptyState title="Nothing matches these filters">Change or clear the filters above to see more of the activity.</EmptyState>
      ) : jobs.length === 0 ? (
        <EmptyState title="No requests yet">Mention one or more members below to send the team its first request.</EmptyState>
      ) : (
        <div
          ref={scrollRef}
          tabIndex={0}
          aria-label="Activity feed"
          onScroll={(e) => {
            const el = e.currentTarget;
            atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight <= BOTTOM_SLACK_PX;
            if (el.scrollTop <= TOP_SLACK_PX && hasOlder && !loadingOlder) onLoadOlder();
          }}
          className="relative max-h-[65vh] min-h-40 space-y-3 overflow-y-auto overscroll-contain rounded-lg bg-zinc-100/60 p-2 focus-visible:outline-2 focus-visible:outline-indigo-500 sm:p-3 dark:bg-zinc-900/40"
        >
          {hasOlder ? (
            <div className="flex flex-col items-center gap-1 text-xs text-zinc-600 dark:text-zinc-400">
              <p>
                Showing the latest {jobs.length} of {totalJobs} {filtered ? 'matching ' : ''}requests and results.
              </p>
              <Button variant="secondary" size="sm" onClick={onLoadOlder} disabled={loadingOlder}>
                {loadingOlder ? 'Loading older…' : 'Show older'}
              </Button>
            </div>
          ) : null}
          {jobs.map((job) => {
            const linkId = linkedJobId(job, jobs);
            const linked = linkId ? (byId.get(linkId) ?? null) : null;
            return (
              <JobCard
                key={job.id}
                job={job}
                linked={linked}
                linkedMissing={linkId !== null && linked === null}
                detailsOpen={openDetails[job.id] === true}
                textExpanded={expandedText[job.id] === true}
                answer={answers[job.id] ?? ''}
                waitReason={waitReasons?.[job.id]}
                {...cardProps}
              />
            );
          })}
        </div>
      )}
    </section>
  );
}
