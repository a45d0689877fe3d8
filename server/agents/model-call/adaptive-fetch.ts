import 'server-only';
import type { ProviderDescriptor } from './provider';
import { DROPPABLE_PARAMETERS, rememberUnsupported, unsupportedParameters } from './unsupported-parameters';

type Fetch = typeof globalThis.fetch;

/**
 * The provider client's fetch: a request leaves out the parameters the provider refused before. A 400 whose body
 * names an optional parameter the request carries (DROPPABLE_PARAMETERS) is answered by sending the request once
 * more without it, and the provider is remembered as refusing it. Done on the wire, under the client, so it holds
 * for any client and any call (streamed or not, the agent's turn or a summary) and sees the exact request sent.
 * Without `stream_options` a server reports no usage in a stream: the call's usage is then absent, never 0.
 */
export function adaptiveFetch(provider: Pick<ProviderDescriptor, 'kind' | 'baseUrl'>, inner: Fetch = globalThis.fetch): Fetch {
  return async (input, init) => {
    const body = jsonBody(init?.body);
    if (!body) return inner(input, init);
    const refused = unsupportedParameters(provider).filter((p) => p in body);
    const sent = refused.length ? without(body, refused) : body;
    const response = await inner(input, refused.length ? withBody(init!, sent) : init);
    if (response.status !== 400) return response;
    const text = await response.text();
    const named = DROPPABLE_PARAMETERS.filter((p) => p in sent && mentions(text, p));
    if (!named.length) return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
    rememberUnsupported(provider, named);
    return inner(input, withBody(init!, without(sent, named)));
  };
}

/** A JSON object body (what every provider client sends), or null for anything else (sent untouched). */
function jsonBody(body: unknown): Record<string, unknown> | null {
  if (typeof body !== 'string') return null;
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function without(body: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  const out = { ...body };
  for (const name of names) delete out[name];
  return out;
}

/** The same request with another body (a length header the client set would no longer be true). */
function withBody(init: RequestInit, body: Record<string, unknown>): RequestInit {
  const headers = new Headers(init.headers);
  headers.delete('content-length');
  return { ...init, headers, body: JSON.stringify(body) };
}

/** The error text names the parameter as a word of its own (`stream_options`, 'stream_options', stream_options.x). */
const mentions = (text: string, name: string): boolean => new RegExp(`(^|[^A-Za-z0-9_])${name}([^A-Za-z0-9_]|$)`).test(text);
