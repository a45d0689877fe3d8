import 'server-only';
import { LIMITS } from '@/lib/limits';
import { subscribeCredentials } from './bus';
import { claimStreamSlot } from './streams';

/** `id` absent: a message that does not move the client's Last-Event-ID (live output, which is not replayed). */
export type PushMessage<T> = { id?: string; event: string; data: T };

export type EventStreamOptions<T> = {
  accountId: string;
  /** The request's signal: the stream ends when the client goes away. */
  signal: AbortSignal;
  /**
   * The request itself, held while the stream is open: a Request's signal follows its source through a controller
   * only the Request holds strongly, so a collected Request would never report the client going away.
   */
  request?: Request;
  /** Start listening; `push` may be called any number of times; returns the unsubscribe function. */
  subscribe: (push: (message: PushMessage<T>) => void) => () => void;
  /**
   * Sent first (after subscribing, so nothing between the two is lost); several when where things stand takes more
   * than one. May read the database: what arrives while it does is sent after it (merged, like any unsent message).
   */
  first?: () => PushMessage<T> | readonly PushMessage<T>[] | Promise<PushMessage<T> | readonly PushMessage<T>[]>;
  /**
   * Fold a new message into one not yet sent. A slow reader never makes messages pile up: each stream holds at
   * most one unsent message per key, the latest state with what changed merged in.
   */
  merge: (unsent: PushMessage<T>, next: PushMessage<T>) => PushMessage<T>;
  /**
   * Messages with different keys are held (and merged) apart, sent in the order they first arrived: a team's
   * revision and each running job's live output. Absent: one key, one unsent message. The keys a stream can have
   * are bounded by its subscriber (one per running job), so what waits stays bounded too.
   */
  key?: (message: PushMessage<T>) => string;
  /**
   * Whether the credential the stream was opened with (its session cookie's version, its API token) still
   * authenticates the account. Asked at every heartbeat and at once when the account's credentials change
   * (bus.ts announceCredentialsChanged, relayed between processes): false, or a failure to tell, ends the stream,
   * so a revoked credential hears nothing more and holds no slot (ADR 040).
   */
  signedIn: () => Promise<boolean>;
  heartbeatMs?: number;
};

/** What every stream's route hands over when it opens it, whatever the stream follows. */
export type StreamOpening = Pick<EventStreamOptions<unknown>, 'accountId' | 'signal' | 'request' | 'signedIn' | 'heartbeatMs'>;

/** Only the opening's own fields: a stream's input carries more (its team, its conversation, Last-Event-ID). */
export const openingOf = ({ accountId, signal, request, signedIn, heartbeatMs }: StreamOpening): StreamOpening => ({
  accountId,
  signal,
  request,
  signedIn,
  heartbeatMs,
});

/**
 * Two unsent messages' changed ids as one list, or null — re-read everything — when either could not list them or
 * the union passes what one message may list (LIMITS.activity.maxLimit).
 */
export function mergeChangedIds(a: string[] | null, b: string[] | null): string[] | null {
  if (!a || !b) return null;
  const union = new Set([...a, ...b]);
  return union.size <= LIMITS.activity.maxLimit ? [...union] : null;
}

const encoder = new TextEncoder();
const format = (m: PushMessage<unknown>) => encoder.encode(`${m.id === undefined ? '' : `id: ${m.id}\n`}event: ${m.event}\ndata: ${JSON.stringify(m.data)}\n\n`);
const HEARTBEAT = encoder.encode(': heartbeat\n\n');

/**
 * A text/event-stream Response. Pull-based (highWaterMark 0): a message is formatted only when the reader asks,
 * so what waits is one merged message per key, never a queue. Ends on abort, on shutdown (streams.ts) or when
 * the reader cancels; every end unsubscribes, stops the heartbeat and gives the account's slot back.
 * Rejects with the 429 AppError when the account already has its maximum of open streams, and with what `first`
 * threw (the stream is then closed).
 */
export async function eventStreamResponse<T>(opts: EventStreamOptions<T>): Promise<Response> {
  // Insertion-ordered: the oldest key goes out first; a merged message keeps its place.
  const unsent = new Map<string, PushMessage<T>>();
  const keyOf = opts.key ?? (() => '');
  let heartbeatDue = false;
  let closed = false;
  let wake: (() => void) | null = null;
  let unsubscribe = () => {};
  const poke = () => {
    wake?.();
    wake = null;
  };
  const held: { request?: Request } = { request: opts.request };
  const end = () => {
    if (closed) return;
    closed = true;
    held.request = undefined;
    unsubscribe();
    stopRechecks();
    clearInterval(timer);
    releaseSlot();
    opts.signal.removeEventListener('abort', end);
    poke();
  };
  const releaseSlot = await claimStreamSlot(opts.accountId, end);
  // One check at a time; a change announced while one runs asks for another after it (the running one may have read
  // before the revocation committed).
  let checking = false;
  let checkAgain = false;
  const recheck = () => {
    if (closed) return;
    if (checking) {
      checkAgain = true;
      return;
    }
    checking = true;
    opts
      .signedIn()
      .then(
        (ok) => ok || end(),
        (error: Error) => {
          console.error("[push] could not re-check a stream's credential, closing the stream:", error.message);
          end();
        },
      )
      .finally(() => {
        checking = false;
        if (checkAgain) {
          checkAgain = false;
          recheck();
        }
      });
  };
  const stopRechecks = subscribeCredentials(opts.accountId, recheck);
  const timer = setInterval(() => {
    heartbeatDue = true;
    poke();
    recheck();
  }, opts.heartbeatMs ?? LIMITS.push.heartbeatMs);
  timer.unref?.();
  const push = (message: PushMessage<T>) => {
    if (closed) return;
    const key = keyOf(message);
    const waiting = unsent.get(key);
    unsent.set(key, waiting ? opts.merge(waiting, message) : message);
    poke();
  };
  try {
    unsubscribe = opts.subscribe(push);
    const first = (await opts.first?.()) ?? [];
    // What arrived while `first` was read goes out after it, each merged into the first message of its key.
    const early = [...unsent.values()];
    unsent.clear();
    for (const message of [...(Array.isArray(first) ? first : [first as PushMessage<T>]), ...early]) push(message);
  } catch (error) {
    end();
    throw error;
  }
  // Closed while `first` was read (shutdown) or aborted meanwhile: the body just ends.
  if (opts.signal.aborted || closed) end();
  else opts.signal.addEventListener('abort', end);

  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        while (!closed && !unsent.size && !heartbeatDue) await new Promise<void>((resolve) => (wake = resolve));
        if (closed) return controller.close();
        const [key, next] = unsent.entries().next().value ?? [];
        if (next) {
          controller.enqueue(format(next));
          unsent.delete(key!);
        } else {
          controller.enqueue(HEARTBEAT);
        }
        heartbeatDue = false;
      },
      cancel: end,
    },
    { highWaterMark: 0 },
  );
  return new Response(body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store, no-transform',
      connection: 'keep-alive',
      // Proxies that buffer (nginx) would hold messages back.
      'x-accel-buffering': 'no',
    },
  });
}

/** Last-Event-ID as a number (a team revision, a conversation event id): a non-negative integer, or null (absent or not one of ours). */
export function parseLastEventId(req: Request): number | null {
  const raw = req.headers.get('last-event-id');
  return raw && /^\d{1,16}$/.test(raw) ? Number(raw) : null;
}
