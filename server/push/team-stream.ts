import 'server-only';
import { subscribeFiles, subscribeLiveOutput, subscribeTeam, type LiveOutputChange } from './bus';
import { eventStreamResponse, mergeChangedIds, openingOf, type PushMessage, type StreamOpening } from './event-stream';
import { currentLiveOutput, liveOutputFields, type LiveOutputFields } from './live-output';

/**
 * What a team stream says: the team is at `revision`; `jobIds` changed since the client's last message, or null
 * when the server can't list them (first message after a reconnect, or too many coalesced): then the client asks
 * `activity?since=<the id it last saw>`.
 */
export type TeamPush = { teamId: string; revision: number; jobIds: string[] | null };

/**
 * A running job's live output (`event: output`, no id: it is not replayed on reconnect, the first messages of every
 * connection carry the text so far): the newest text of its member's current response, `truncated` when older
 * text was dropped, `done` once its run has finished (the job's result follows as a `team` change).
 */
export type TeamOutputPush = { teamId: string; jobId: string } & LiveOutputFields;

/** A workspace file was created, updated or deleted (`event: file`, no id: the Files panel re-reads the list). */
export type FilePush = { fileId: string; teamId: string; revision: number };

type TeamStreamInput = StreamOpening & {
  teamId: string;
  /** The team's revision as read (after the ownership check) when the stream opens. */
  readRevision: () => number | Promise<number>;
  /** Last-Event-ID (a revision) the client reconnects with, if any. */
  lastEventId: number | null;
};

const message = (data: TeamPush): PushMessage<TeamPush> => ({ id: String(data.revision), event: 'team', data });

const outputMessage = (change: LiveOutputChange & { teamId: string; jobId: string }): PushMessage<TeamOutputPush> => ({
  event: 'output',
  data: { teamId: change.teamId, jobId: change.jobId, ...liveOutputFields(change) },
});

const isTeamMessage = (m: PushMessage<TeamPush | TeamOutputPush | FilePush>): m is PushMessage<TeamPush> => m.event === 'team';
const ofTeam = (teamId: string) => (c: LiveOutputChange): c is LiveOutputChange & { teamId: string; jobId: string } => c.teamId === teamId && c.jobId !== null;

/** Two unsent team messages become one: the later revision, with the union of changed jobs (bounded). */
export function mergeTeamPush(a: PushMessage<TeamPush>, b: PushMessage<TeamPush>): PushMessage<TeamPush> {
  const revision = Math.max(a.data.revision, b.data.revision);
  return message({ teamId: a.data.teamId, revision, jobIds: mergeChangedIds(a.data.jobIds, b.data.jobIds) });
}

/**
 * The team's event stream. Each message's id is the team revision, so a reconnect's Last-Event-ID says where the
 * client was. The first message is the revision now: with `jobIds: []` when the client is already there,
 * null otherwise (a fresh client, or one that missed changes, reads activity?since).
 */
export function teamEventStream(input: TeamStreamInput): Promise<Response> {
  const ofThisTeam = ofTeam(input.teamId);
  /** The revision the first message says (set once it is read). */
  let said: number | undefined;
  return eventStreamResponse<TeamPush | TeamOutputPush | FilePush>({
    ...openingOf(input),
    subscribe: (push) => {
      const team = subscribeTeam(input.teamId, (change) => {
        // A change announced after the first message but at or below its revision (its after-commit read was slower
        // than this stream's) is already covered by it: the client is there, or reads since. Sending it would only
        // move the client's Last-Event-ID back.
        if (said !== undefined && change.revision <= said) return;
        push(message({ teamId: change.teamId, revision: change.revision, jobIds: change.jobIds }));
      });
      // Owner-scoped twice: the route checked the team is the caller's, and only the caller's runs are heard.
      const output = subscribeLiveOutput(input.accountId, ofThisTeam, (change) => {
        if (ofThisTeam(change)) push(outputMessage(change));
      });
      const files = subscribeFiles(input.accountId, (c) => c.teamId === input.teamId, (c) =>
        push({ event: 'file', data: { fileId: c.fileId, teamId: input.teamId, revision: c.revision } }),
      );
      return () => {
        team();
        output();
        files();
      };
    },
    first: async () => {
      const revision = await input.readRevision();
      said = revision;
      const live = currentLiveOutput(input.accountId, ofThisTeam).flatMap((c) => (ofThisTeam(c) ? [outputMessage(c)] : []));
      return [message({ teamId: input.teamId, revision, jobIds: input.lastEventId === revision ? [] : null }), ...live];
    },
    // A job's newer live output replaces what was not sent yet (it carries the whole text so far).
    merge: (a, b) => (isTeamMessage(a) && isTeamMessage(b) ? mergeTeamPush(a, b) : b),
    key: (m) => (isTeamMessage(m) ? 'team' : m.event === 'file' ? `file:${(m.data as FilePush).fileId}` : `output:${(m.data as TeamOutputPush).jobId}`),
  });
}
