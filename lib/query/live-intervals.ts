/**
 * How often each live view re-reads while its push stream is down (ADR 030: push first, a timer only as the
 * fallback). One table, so the cadences are compared side by side and none is defined twice; each is the cadence
 * its view needs when a timer is all it has, so losing the stream leaves a view as fresh as polling alone would.
 */
export const LIVE_FALLBACK_MS = {
  /** A run being followed (its Steps panel, its delegated children): a person is watching each step land. */
  followedRun: 1_000,
  /** The Runs timeline: bars start and end often while a team works, and a new run should show within a glance. */
  runsTimeline: 3_000,
  /** An open conversation or team workspace: a reply or a job card a few seconds late still reads as a conversation. */
  openThread: 5_000,
  /** The teams list: statuses and badges only, glanced at between pages; the least urgent. */
  teamList: 10_000,
} as const;

export type LiveCadence = keyof typeof LIVE_FALLBACK_MS;
