import 'server-only';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import { LIMITS } from '@/lib/limits';
import { egressDispatcher, type Resolver } from '@/server/egress';

/**
 * One page fetched for an account's agent (ADR 060), under the egress rule (server/egress: each connection resolves
 * its host once, refuses any non-public answer unless EGRESS_ALLOW lists it, and connects to the checked address).
 * Redirects are followed here, not by fetch, so that each one is counted, a loop is seen, its scheme is checked, and
 * its target goes through the same pinned connector — a public page can't send the fetch to 127.0.0.1 or the
 * metadata address. One deadline covers everything: connecting, every redirect, and reading the body. The body is
 * read as a stream and reading stops at the byte cap; the content type is decided before any of it is read.
 */

const W = LIMITS.web;

export type WebFetchErrorKind = 'invalid_url' | 'egress' | 'timeout' | 'redirects' | 'status' | 'content_type' | 'network' | 'cancelled';

export class WebFetchError extends Error {
  constructor(
    message: string,
    readonly kind: WebFetchErrorKind,
  ) {
    super(message);
    this.name = 'WebFetchError';
  }
}

/** The media types a fetch reads; anything else is refused before its body is read. */
export const READABLE_TYPES = ['text/html', 'application/xhtml+xml', 'text/plain', 'text/markdown', 'application/json'] as const;
export type ReadableType = (typeof READABLE_TYPES)[number];

export type FetchedPage = {
  /** Where the body came from: the last redirect's target. */
  url: URL;
  status: number;
  mediaType: ReadableType;
  charset: string | undefined;
  body: Uint8Array;
  /** The body went on past the byte cap; `body` is its first `maxBytes`. */
  truncated: boolean;
};

export type FetchOptions = {
  maxBytes?: number;
  timeoutMs?: number;
  maxRedirects?: number;
  /** The run's own abort (cancel, time limit, shutdown). */
  signal?: AbortSignal;
  /** Tests give names their answers; the default asks the system once per connection. */
  resolve?: Resolver;
};

/** The URL as the fetch takes it: http(s), no credentials in it, within the length bound; else why not. */
export function checkedUrl(text: string, what = 'The URL'): URL {
  if ([...text].length > W.urlChars) throw new WebFetchError(`${what} is longer than ${W.urlChars} characters.`, 'invalid_url');
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new WebFetchError(`${what} is not a valid absolute URL (like https://example.com/page).`, 'invalid_url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebFetchError(`${what} must be http or https, not ${url.protocol.slice(0, 20)}`, 'invalid_url');
  // A user name or password in a URL is a credential: it is never sent, and never written into a result or an origin.
  if (url.username || url.password) throw new WebFetchError(`${what} must not carry a user name or password.`, 'invalid_url');
  url.hash = '';
  return url;
}

const isRedirect = (status: number) => status === 301 || status === 302 || status === 303 || status === 307 || status === 308;

export async function fetchPage(input: string, options: FetchOptions = {}): Promise<FetchedPage> {
  const maxBytes = options.maxBytes ?? W.maxBytes;
  const maxRedirects = options.maxRedirects ?? W.maxRedirects;
  const timeoutMs = options.timeoutMs ?? W.timeoutMs;
  let url = checkedUrl(input);
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  const dispatcher = egressDispatcher(options.resolve);
  const failure = (error: unknown) => classify(error, deadline, options.signal, timeoutMs);
  try {
    const seen = new Set<string>([url.href]);
    for (let redirects = 0; ; redirects++) {
      const res = await get(url, dispatcher, signal).catch((error: unknown) => {
        throw failure(error);
      });
      if (isRedirect(res.status)) {
        await res.body?.cancel().catch(() => undefined);
        const location = res.headers.get('location');
        if (!location) throw new WebFetchError(`The page answered ${res.status} without saying where to go.`, 'status');
        if (redirects >= maxRedirects) throw new WebFetchError(`The page redirected more than ${maxRedirects} times; stopped.`, 'redirects');
        let next: URL;
        try {
          next = checkedUrl(new URL(location, url).href, 'A redirect');
        } catch (error) {
          if (error instanceof WebFetchError) throw error;
          throw new WebFetchError('A redirect named an invalid URL.', 'invalid_url');
        }
        if (seen.has(next.href)) throw new WebFetchError('The page redirects in a loop; stopped.', 'redirects');
        seen.add(next.href);
        url = next;
        continue;
      }
      if (res.status >= 400) {
        await res.body?.cancel().catch(() => undefined);
        throw new WebFetchError(`The page answered ${res.status}${res.statusText ? ` ${res.statusText.slice(0, 80)}` : ''}.`, 'status');
      }
      const { mediaType, charset } = contentType(res.headers.get('content-type'));
      if (!(READABLE_TYPES as readonly string[]).includes(mediaType)) {
        await res.body?.cancel().catch(() => undefined);
        const said = mediaType ? `"${mediaType.slice(0, 100)}"` : 'no content type';
        throw new WebFetchError(`The page is ${said}; web_fetch reads only HTML, plain text, Markdown and JSON.`, 'content_type');
      }
      const { body, truncated } = await readCapped(res.body, maxBytes).catch((error: unknown) => {
        throw failure(error);
      });
      return { url, status: res.status, mediaType: mediaType as ReadableType, charset, body, truncated };
    }
  } finally {
    // No connection outlives the call: its pool is this call's alone.
    void dispatcher.destroy().catch(() => undefined);
  }
}

function get(url: URL, dispatcher: Dispatcher, signal: AbortSignal) {
  return undiciFetch(url, {
    redirect: 'manual',
    dispatcher,
    signal,
    headers: {
      accept: 'text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,application/json;q=0.8',
      'user-agent': 'Ensemble-web-fetch/1.0',
    },
  });
}

function contentType(header: string | null): { mediaType: string; charset: string | undefined } {
  if (!header) return { mediaType: '', charset: undefined };
  const [type, ...params] = header.split(';');
  const charset = params
    .map((p) => p.trim().match(/^charset\s*=\s*"?([^";\s]+)"?$/i)?.[1])
    .find((c): c is string => Boolean(c));
  const mediaType = type!.trim().toLowerCase();
  // application/ld+json, application/problem+json, … are JSON too.
  return { mediaType: /^application\/[a-z0-9.+-]+\+json$/.test(mediaType) ? 'application/json' : mediaType, charset };
}

/** At most `maxBytes` of the body; past that the stream is cancelled (the rest is never read) and the cut is said. */
async function readCapped(stream: NodeReadableStream<Uint8Array> | null, maxBytes: number): Promise<{ body: Uint8Array; truncated: boolean }> {
  if (!stream) return { body: new Uint8Array(0), truncated: false };
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return { body, truncated };
}

/** What went wrong, in a sentence for the model: the deadline, the run's cancel, the egress rule, or the network. */
function classify(error: unknown, deadline: AbortSignal, run: AbortSignal | undefined, timeoutMs: number): WebFetchError {
  if (error instanceof WebFetchError) return error;
  if (deadline.aborted) return new WebFetchError(`The page did not finish within ${Math.round(timeoutMs / 1000)} s; stopped.`, 'timeout');
  if (run?.aborted) return new WebFetchError('The fetch was cancelled with the run.', 'cancelled');
  const refused = causeNamed(error, 'EgressRefused');
  if (refused) {
    const rule = refused.message.startsWith('Refused:') ? ' (web fetch reaches public addresses only)' : '';
    return new WebFetchError(`${refused.message.slice(0, 300)}${rule}.`, 'egress');
  }
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message.slice(0, 200) : 'the connection failed';
  return new WebFetchError(`The page could not be fetched: ${detail}.`, 'network');
}

function causeNamed(error: unknown, name: string): Error | undefined {
  for (let e = error as { name?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.name === name) return e as Error;
  }
  return undefined;
}
