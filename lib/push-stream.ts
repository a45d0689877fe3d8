/**
 * Reads one of the server's event streams (ADR 020) with fetch rather than EventSource, because the browser's
 * EventSource hides the two things a live view needs to know: the `: heartbeat` comments (so a connection that went
 * silent without closing is noticed and replaced) and the HTTP status (so a 404 stops for good and a 429 waits its
 * Retry-After instead of retrying every few seconds). It still behaves like EventSource where that matters:
 * reconnects by itself and sends `Last-Event-ID`, so the server's first message says whether anything was missed.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { LIMITS } from '@/lib/limits';

export type PushStreamStatus =
  | { state: 'connecting' }
  | { state: 'open' }
  /** Between attempts: the last one failed or the stream ended; the next is in `retryInMs`. */
  | { state: 'down'; failures: number; retryInMs: number }
  /** Stopped for good: the server said the resource is gone or the session is (401, 403, 404). */
  | { state: 'closed'; status: number };

export type PushStreamOptions = {
  url: string;
  onMessage(message: EventSourceMessage): void;
  onStatus(status: PushStreamStatus): void;
  /** The server's heartbeat period; a stream silent for SILENCE_FACTOR × this is taken as dead. */
  heartbeatMs?: number;
  fetch?: typeof fetch;
  /** Milliseconds before attempt `failures + 1`; `retryAfterMs` is the server's Retry-After, when it sent one. */
  reconnectDelay?(failures: number, retryAfterMs: number | null): number;
};

/** Two missed heartbeats and a half: long enough for a slow proxy, short enough to notice a dead connection. */
export const SILENCE_FACTOR = 2.5;
export const RECONNECT_MAX_MS = 8_000;
const PERMANENT = new Set([401, 403, 404]);

/**
 * 1 s, 2 s, 4 s, then RECONNECT_MAX_MS, each ±25 % so clients that lost the server together don't return
 * together; a Retry-After (the per-account stream cap) is honoured as given.
 */
export function defaultReconnectDelay(failures: number, retryAfterMs: number | null, random = Math.random): number {
  if (retryAfterMs !== null) return retryAfterMs;
  const base = Math.min(RECONNECT_MAX_MS, 1_000 * 2 ** Math.max(0, failures - 1));
  return Math.round(base * (0.75 + random() * 0.5));
}

function retryAfterMs(res: Response): number | null {
  const seconds = Number(res.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 3_600) * 1_000 : null;
}

/** Open the stream; it keeps itself open until `close()` or a permanent refusal. */
export function openPushStream(options: PushStreamOptions): { close(): void } {
  const fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  const silenceMs = (options.heartbeatMs ?? LIMITS.push.heartbeatMs) * SILENCE_FACTOR;
  const delay = options.reconnectDelay ?? defaultReconnectDelay;
  let lastId: string | undefined;
  let failures = 0;
  let closed = false;
  let controller: AbortController | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  const connect = async () => {
    if (closed) return;
    const attempt = new AbortController();
    controller = attempt;
    let silence: ReturnType<typeof setTimeout> | undefined;
    // Any byte (message or heartbeat) proves the connection alive; silence past the bound replaces it.
    const armSilence = () => {
      clearTimeout(silence);
      silence = setTimeout(() => attempt.abort(), silenceMs);
    };
    let waitMs: number | null = null;
    try {
      armSilence();
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (lastId !== undefined) headers['last-event-id'] = lastId;
      const res = await fetchImpl(options.url, { headers, signal: attempt.signal, cache: 'no-store', credentials: 'same-origin' });
      if (PERMANENT.has(res.status)) {
        closed = true;
        options.onStatus({ state: 'closed', status: res.status });
        return;
      }
      if (!res.ok || !res.body) {
        waitMs = retryAfterMs(res);
        await res.body?.cancel();
      } else {
        // Open once the server's first message arrives (it always sends one: where things stand now).
        let opened = false;
        const parser = createParser({
          onEvent: (message) => {
            if (message.id !== undefined) lastId = message.id;
            if (!opened) {
              opened = true;
              failures = 0;
              options.onStatus({ state: 'open' });
            }
            options.onMessage(message);
          },
        });
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        // Browsers error the body on abort; make sure a pending read ends whatever fetch did.
        attempt.signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined), { once: true });
        for (;;) {
          const { done, value } = await reader.read();
          if (done || closed) break;
          armSilence();
          parser.feed(value);
        }
      }
    } catch {
      // A network error, the server going away or the silence bound: all mean "reconnect".
    } finally {
      clearTimeout(silence);
    }
    if (closed) return;
    failures += 1;
    const retryInMs = delay(failures, waitMs);
    options.onStatus({ state: 'down', failures, retryInMs });
    retryTimer = setTimeout(() => void connect(), retryInMs);
  };

  options.onStatus({ state: 'connecting' });
  void connect();
  return {
    close() {
      closed = true;
      clearTimeout(retryTimer);
      controller?.abort();
    },
  };
}

/** A pushed message's data as an object, or null when it is not JSON or not an object (data from the wire). */
export function parsePushObject(raw: string): Record<string, unknown> | null {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return null;
  }
  return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : null;
}
