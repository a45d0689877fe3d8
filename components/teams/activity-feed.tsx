'use client';

import { useLayoutEffect, useMemo, useRef } from 'react';
import { EmptyState } from '@/components/ui/misc';
import { linkedJobId } from './feed';
import type { ApiJob } from '@/lib/types/team';
import { JobCard, type JobCardProps } from './job-card';

type Props = Omit<JobCardProps, 'job' | 'linked' | 'linkedMissing' | 'detailsOpen' | 'textExpanded' | 'answer'> & {
  /** Oldest first. */
  jobs: ApiJob[];
  totalJobs: number;
  openDetails: Readonly<Record<string, boolean>>;
  expandedText: Readonly<Record<string, boolean>>;
  answers: Readonly<Record<string, string>>;
};

const BOTTOM_SLACK_PX = 40;

/**
 * Every request paired with its result, oldest at the top. Cards are keyed by job id and their open/typed
 * state lives outside the fetched data, so live updates replace data without touching what the reader did.
 * New activity scrolls into view only when the reader is already at the bottom.
 */
export function ActivityFeed({ jobs, totalJobs, openDetails, expandedText, answers, ...handlers }: Props) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const byId = useMemo(() => new Map(jobs.map((j) => [j.id, j])), [jobs]);

  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [jobs]);

  return (
    <section aria-labelledby="activity-heading" className="min-w-0">
      <h2 id="activity-heading" className="mb-2 text-sm font-semibold text-zinc-800 dark:text-zinc-200">
        Activity
      </h2>
      {jobs.length === 0 ? (
        <EmptyState title="No requests yet">Mention one or more members below to send the team its first request.</EmptyState>
      ) : (
        <div
          ref={scrollRef}
          tabIndex={0}
          aria-label="Activity feed"
          onScroll={(e) => {
            const el = e.currentTarget;
            atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight <= BOTTOM_SLACK_PX;
          }}
          className="max-h-[65vh] min-h-40 space-y-3 overflow-y-auto overscroll-contain rounded-lg bg-zinc-100/60 p-2 focus-visible:outline-2 focus-visible:outline-indigo-500 sm:p-3 dark:bg-zinc-900/40"
        >
          {totalJobs > jobs.length ? (
            <p className="text-center text-xs text-zinc-500 dark:text-zinc-400">
              Showing the latest {jobs.length} of {totalJobs} requests and results.
            </p>
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
                {...handlers}
              />
            );
          })}
        </div>
      )}
    </section>
  );
}
