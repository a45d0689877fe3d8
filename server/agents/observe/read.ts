import 'server-only';
import type { ApiRunEvent, ApiRunEventsPage } from '@/lib/types/run-events';
import { isFinished } from '../run-store';
import { get } from '../runs';
import { runEventRows } from './record';

/** A run's events with seq > after, in seq order, at most `limit`; `hasMore` when more are stored right now. */
export async function readRunEvents(runId: string, after: number, limit: number): Promise<{ events: ApiRunEvent[]; hasMore: boolean }> {
  const rows = await runEventRows(runId, after, limit + 1);
  const events = rows.slice(0, limit).map((row) => ({ seq: row.seq, type: row.type, at: new Date(row.at).toISOString(), runId, ...(JSON.parse(row.data) as object) }) as ApiRunEvent);
  return { events, hasMore: rows.length > limit };
}

/**
 * GET /api/v1/runs/:id/events: the owner's run (404 otherwise, like a missing id) and a page of its events after
 * `after`. The run's status is read before its events: a run recorded finished has its run.finished event stored
 * already (run-store finishRun writes it first), so `finished` with no `hasMore` means the client has everything.
 */
export async function runEventsPage(ownerId: string, runId: string, page: { after: number; limit: number }): Promise<ApiRunEventsPage> {
  const run = await get(ownerId, runId);
  const finished = isFinished(run.status);
  const { events, hasMore } = await readRunEvents(run.id, page.after, page.limit);
  return { runId: run.id, events, nextAfter: events.at(-1)?.seq ?? page.after, hasMore, finished };
}
