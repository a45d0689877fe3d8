import 'server-only';
import { LIMITS } from '@/lib/limits';
import { subscribeAccountTeams } from './bus';
import { eventStreamResponse, openingOf, type PushMessage } from './event-stream';

/**
 * What the teams-list stream says: these of your teams changed (a job moved, a state write, settings, a deletion:
 * re-read the list), or `teamIds: null`: re-read it (the first message of every connection, or too many to list).
 * The list is one small read, so it carries no revision: a (re)connecting client simply re-reads once.
 */
export type TeamListPush = { teamIds: string[] | null };

type TeamListStreamInput = {
  accountId: string;
  signal: AbortSignal;
  /** Held while the stream is open (event-stream.ts). */
  request?: Request;
  /** The opening credential still good (event-stream.ts). */
  signedIn: () => Promise<boolean>;
  heartbeatMs?: number;
};

// Ids only keep the SSE framing honest (a client's Last-Event-ID is not used: the first message says "re-read").
const g = globalThis as unknown as { __ensembleTeamListIds?: number };
const nextId = () => (g.__ensembleTeamListIds = (g.__ensembleTeamListIds ?? Date.now() * 1_000) + 1);
const message = (teamIds: string[] | null): PushMessage<TeamListPush> => ({ id: String(nextId()), event: 'teams', data: { teamIds } });

/** Two unsent messages become one: the later id, the union of teams (bounded), null when either said "re-read". */
export function mergeTeamListPush(a: PushMessage<TeamListPush>, b: PushMessage<TeamListPush>): PushMessage<TeamListPush> {
  let teamIds: string[] | null = null;
  if (a.data.teamIds && b.data.teamIds) {
    const union = new Set([...a.data.teamIds, ...b.data.teamIds]);
    teamIds = union.size <= LIMITS.activity.maxLimit ? [...union] : null;
  }
  return { id: Number(b.id) > Number(a.id) ? b.id : a.id, event: 'teams', data: { teamIds } };
}

/** The account's teams-list stream: only its own teams' changes (the bus carries the owner), never another's. */
export function teamListEventStream(input: TeamListStreamInput): Promise<Response> {
  return eventStreamResponse<TeamListPush>({
    ...openingOf(input),
    subscribe: (push) => subscribeAccountTeams(input.accountId, (change) => push(message([change.teamId]))),
    first: () => message(null),
    merge: mergeTeamListPush,
  });
}
