/**
 * Re-reading the conversation while requests it sent by @mention are still out. Their results arrive as
 * receipt runs the scheduler starts later, so there is no active run to poll on in the meantime. Polling
 * backs off the longer nothing changes: a cancelled request never sends a receipt, and an open page should not
 * keep asking every two seconds for it.
 */
import { POLL_INTERVAL_MS, pollInterval } from './run-state';
import type { Run } from './types';

export type PendingWatch = { key: string; since: number };

/** Keep the start time while the same requests are pending; restart it when the set changes; null when none. */
export function watchPending(previous: PendingWatch | null, pendingJobIds: readonly string[], now: number): PendingWatch | null {
  if (pendingJobIds.length === 0) return null;
  const key = [...pendingJobIds].sort().join(' ');
  return previous && previous.key === key ? previous : { key, since: now };
}

/** 2 s for the first minute, 5 s up to ten minutes, then every 30 s. */
export function pendingPollInterval(elapsedMs: number): number {
  if (elapsedMs < 60_000) return 2_000;
  if (elapsedMs < 600_000) return 5_000;
  return 30_000;
}

/** The conversation's refetchInterval: fast while a run works, else backing off while mentions are pending. */
export function conversationPollInterval(run: Pick<Run, 'status'> | null | undefined, pending: PendingWatch | null, now: number): number | false {
  const forRun = pollInterval(run, POLL_INTERVAL_MS);
  if (forRun !== false) return forRun;
  return pending ? pendingPollInterval(now - pending.since) : false;
}
