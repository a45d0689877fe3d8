import 'server-only';
import { LIMITS } from '@/lib/limits';
import { subscribeTeam } from './bus';
import { eventStreamResponse, type PushMessage } from './event-stream';

/**
 * What a team stream says: the team is at `revision`; `jobIds` changed since the client's last message, or null
 * when the server can't list them (first message after a reconnect, or too many coalesced): then the client asks
 * `activity?since=<the id it last saw>`.
 */
export type TeamPush = { teamId: string; revision: number; jobIds: string[] | null };

type TeamStreamInput = {
  accountId: string;
  teamId: string;
  /** The team's revision as read (after the ownership check) when the stream opens. */
  readRevision: () => number;
  /** Last-Event-ID (a revision) the client reconnects with, if any. */
  lastEventId: number | null;
  signal: AbortSignal;
  /** Held while the stream is open (event-stream.ts). */
  request?: Request;
  heartbeatMs?: number;
};

const message = (data: TeamPush): PushMessage<TeamPush> => ({ id: String(data.revision), event: 'team', data });

/** Two unsent team messages become one: the later revision, with the union of changed jobs (bounded). */
export function mergeTeamPush(a: PushMessage<TeamPush>, b: PushMessage<TeamPush>): PushMessage<TeamPush> {
  const revision = Math.max(a.data.revision, b.data.revision);
  let jobIds: string[] | null = null;
  if (a.data.jobIds && b.data.jobIds) {
    const union = new Set([...a.data.jobIds, ...b.data.jobIds]);
    jobIds = union.size <= LIMITS.activity.maxLimit ? [...union] : null;
  }
  return message({ teamId: a.data.teamId, revision, jobIds });
}

/**
 * The team's event stream. Each message's id is the team revision, so a reconnect's Last-Event-ID says where the
 * client was. The first message is the revision now: with `jobIds: []` when the client is already there,
 * null otherwise (a fresh client, or one that missed changes, reads activity?since).
 */
export function teamEventStream(input: TeamStreamInput): Response {
  return eventStreamResponse<TeamPush>({
    accountId: input.accountId,
    signal: input.signal,
    request: input.request,
    heartbeatMs: input.heartbeatMs,
    subscribe: (push) =>
      subscribeTeam(input.teamId, (change) => push(message({ teamId: change.teamId, revision: change.revision, jobIds: change.jobIds }))),
    first: () => {
      const revision = input.readRevision();
      return message({ teamId: input.teamId, revision, jobIds: input.lastEventId === revision ? [] : null });
    },
    merge: mergeTeamPush,
  });
}
