import 'server-only';
import { isIncompleteStream } from './incomplete-stream';

/** What a failed model call allows: another attempt (after at least `retryAfterMs` when the provider said so), or none. */
export type CallFailure = { transient: true; retryAfterMs?: number } | { transient: false };

/** Overloaded, rate-limited or failing on its side: the same request may well work in a moment. */
const TRANSIENT_STATUS = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

/**
 * Error types a provider sends inside a stream (no HTTP status by then) that mean its side failed: Anthropic's
 * `overloaded_error` (529) and `api_error` (500), and the OpenAI format's `server_error` (OpenAI and gateways send it
 * mid-answer).
 */
const TRANSIENT_ERROR_TYPES = new Set(['overloaded_error', 'api_error', 'server_error']);

/** The connection went (reset, refused, cut mid-stream, timed out) before the answer was whole. */
const CONNECTION_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const CONNECTION_NAMES = new Set(['APIConnectionError', 'APIConnectionTimeoutError', 'TimeoutError']);
/** What fetch and the provider clients say when the body stream ends early. */
const CONNECTION_MESSAGES = /^(terminated|fetch failed|socket hang up|other side closed)$|connection error|premature close|stream ended/i;

/**
 * Whether a model call's error is worth another attempt. Transient: HTTP 408, 409, 429 and 5xx (529 "overloaded"
 * among them), an `overloaded_error`, `api_error` or `server_error` sent inside a stream, a stream that ended before its answer did
 * (incomplete-stream.ts), and a connection that failed or broke mid-stream (a
 * broken stream is always retried as a whole: the graph runs tools only after the answer is whole, so nothing it
 * asked for has run). Anything else — another 4xx, a configuration error, a bug — fails at once with its message.
 * A cancel or time limit is the caller's to see (its signal), never classified here.
 */
export function classifyFailure(error: unknown): CallFailure {
  const status = statusOf(error);
  if (status !== undefined) return TRANSIENT_STATUS(status) ? withRetryAfter(error) : { transient: false };
  if (TRANSIENT_ERROR_TYPES.has(errorType(error) ?? '')) return withRetryAfter(error);
  if (isIncompleteStream(error)) return { transient: true };
  return brokenConnection(error) ? { transient: true } : { transient: false };
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown; status_code?: unknown } | null)?.status ?? (error as { status_code?: unknown } | null)?.status_code;
  return typeof status === 'number' && Number.isInteger(status) && status >= 100 ? status : undefined;
}

/** Anthropic's error body type (`{ error: { type } }`), sent with a status or inside a stream. */
function errorType(error: unknown): string | undefined {
  const body = (error as { error?: { type?: unknown; error?: { type?: unknown } } } | null)?.error;
  const type = body?.error?.type ?? body?.type;
  return typeof type === 'string' ? type : undefined;
}

/** The error or one of its causes is a connection failure (at most a few levels deep). */
function brokenConnection(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const e = current as { name?: unknown; code?: unknown; message?: unknown; cause?: unknown };
    if (typeof e.code === 'string' && CONNECTION_CODES.has(e.code)) return true;
    if (typeof e.name === 'string' && CONNECTION_NAMES.has(e.name)) return true;
    if (typeof e.message === 'string' && CONNECTION_MESSAGES.test(e.message.trim())) return true;
    current = e.cause;
  }
  return false;
}

function withRetryAfter(error: unknown): CallFailure {
  const ms = retryAfterMs(headersOf(error));
  return ms === undefined ? { transient: true } : { transient: true, retryAfterMs: ms };
}

function headersOf(error: unknown): ((name: string) => string | null | undefined) | undefined {
  const headers = (error as { headers?: unknown } | null)?.headers;
  if (!headers || typeof headers !== 'object') return undefined;
  if (typeof (headers as Headers).get === 'function') return (name) => (headers as Headers).get(name);
  return (name) => {
    const value = (headers as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
  };
}

/** `retry-after-ms` (OpenAI's), else `Retry-After` in seconds or as an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: ((name: string) => string | null | undefined) | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const ms = Number(header('retry-after-ms'));
  if (header('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = header('retry-after')?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Number(raw) * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
