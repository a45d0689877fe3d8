/**
 * How the Runs page hears of new runs (pure parts; use-team-runs-push.ts wires them to the stream). It follows the
 * team's own event stream (GET /teams/:id/events, ADR 020/025): a job admitted, its run stored, finished, answered
 * or cancelled each move the team's revision, and a revision past the one the page last read from starts one
 * timeline read. Polling remains only while the stream is down (ADR 030's rule for every live page).
 */
import { parsePushObject, type PushStreamStatus } from '@/lib/push-stream';
import { liveConnection, type LiveConnection } from '@/components/teams/use-team-events';
import type { ApiTeamRuns } from '@/lib/types/team-runs';

/** How often the timeline is re-read while its stream is down (the interval it polled at before push). */
export const FALLBACK_REFETCH_MS = 3_000;

/** The revision a `team` message of this team announces; null for anything else from the wire. */
export function parseTeamRevision(raw: string, teamId: string): number | null {
  const data = parsePushObject(raw);
  if (!data) return null;
  const { teamId: id, revision } = data;
  return id === teamId && Number.isSafeInteger(revision) && (revision as number) >= 0 ? (revision as number) : null;
}

/** The page's status line: pushed ("Live") or, while the stream is down, polled every FALLBACK_REFETCH_MS. */
export const timelineConnection = (status: PushStreamStatus): LiveConnection => liveConnection(status, FALLBACK_REFETCH_MS);

/**
 * The timeline query's re-read interval: none while pushed; while the stream is down, FALLBACK_REFETCH_MS — also
 * with nothing running, since a new request's run would otherwise not appear until the stream is back.
 */
export const fallbackInterval = (connection: LiveConnection): number | false => (connection.state === 'polling' ? FALLBACK_REFETCH_MS : false);

/** Whether a running bar must keep growing on screen (a one-second local tick, no read). */
export const hasUnfinishedRuns = (data: ApiTeamRuns | undefined) => !!data?.runs.some((r) => r.finishedAt === null);
