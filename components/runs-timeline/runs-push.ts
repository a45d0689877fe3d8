/**
 * How the Runs page hears of new runs (pure parts; use-team-runs-push.ts wires them to the stream). It follows the
 * team's own event stream (GET /teams/:id/events, ADR 020/025): a job admitted, its run stored, finished, answered
 * or cancelled each move the team's revision, and a revision past the one the page last read from starts one
 * timeline read. Polling remains only while the stream is down (ADR 030's rule for every live page).
 */
import { parsePushObject } from '@/lib/push-stream';
import type { ApiTeamRuns } from '@/lib/types/team-runs';

/** The revision a `team` message of this team announces; null for anything else from the wire. */
export function parseTeamRevision(raw: string, teamId: string): number | null {
  const data = parsePushObject(raw);
  if (!data) return null;
  const { teamId: id, revision } = data;
  return id === teamId && Number.isSafeInteger(revision) && (revision as number) >= 0 ? (revision as number) : null;
}

/** Whether a running bar must keep growing on screen (a one-second local tick, no read). */
export const hasUnfinishedRuns = (data: ApiTeamRuns | undefined) => !!data?.runs.some((r) => r.finishedAt === null);
