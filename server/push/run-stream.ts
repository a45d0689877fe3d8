import 'server-only';
import { subscribeConversation } from './bus';
import { eventStreamResponse, openingOf, type PushMessage } from './event-stream';

/**
 * What a run stream says: the run has stored events up to `seq` (read them with GET /runs/:id/events?after=<the
 * last seq you hold>), and `finished`: nothing follows. Also sent when only the run's delegated children changed
 * (same seq): re-read its children. The id is the seq, so Last-Event-ID needs no memory on the server: the first
 * message always says where the run stands now, and a client that holds less reads the difference.
 */
export type RunPush = { runId: string; seq: number; finished: boolean };

type RunStreamInput = {
  accountId: string;
  runId: string;
  /** The run's conversation (its thread): run events and child changes are announced on it (conversation-changes.ts). */
  conversationId: string;
  /** The run's head as committed now (server/agents/observe/run-head.ts; push does not import agents). */
  readHead: () => RunHead | Promise<RunHead>;
  signal: AbortSignal;
  /** Held while the stream is open (event-stream.ts). */
  request?: Request;
  /** The opening credential still good (event-stream.ts). */
  signedIn: () => Promise<boolean>;
  heartbeatMs?: number;
};

type RunHead = { seq: number; finished: boolean };

const message = (data: RunPush): PushMessage<RunPush> => ({ id: String(data.seq), event: 'run', data });

/** Two unsent run messages become one: the higher seq, finished once either says so (a run never un-finishes). */
export function mergeRunPush(a: PushMessage<RunPush>, b: PushMessage<RunPush>): PushMessage<RunPush> {
  return message({ runId: a.data.runId, seq: Math.max(a.data.seq, b.data.seq), finished: a.data.finished || b.data.finished });
}

/**
 * One run's event stream, for an open Steps panel. It listens to the run's conversation on the bus (each commit
 * of run events is one announcement, coalesced per tick) and keeps only those naming this run; each becomes the
 * run's head read after the commit. A slow reader holds one merged message, never a queue (event-stream.ts).
 * Heads are read one at a time, so a message never reports an older head than the one before it; announcements
 * during a read are answered by one more read after it.
 */
export function runEventStream(input: RunStreamInput): Promise<Response> {
  const head = async () => message({ runId: input.runId, ...(await input.readHead()) });
  let reading = false;
  let again = false;
  const readAndPush = async (push: (m: PushMessage<RunPush>) => void) => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        push(await head());
      } while (again);
    } finally {
      reading = false;
    }
  };
  return eventStreamResponse<RunPush>({
    ...openingOf(input),
    subscribe: (push) =>
      subscribeConversation(input.conversationId, (change) => {
        if (!change.runIds.includes(input.runId)) return;
        // This runs after a commit, from the bus: a failed read must not become an unhandled rejection. The
        // client's next message (or its fallback read) catches up.
        void readAndPush(push).catch((error: unknown) => console.error('[push] run head not read:', error));
      }),
    first: head,
    merge: mergeRunPush,
  });
}
