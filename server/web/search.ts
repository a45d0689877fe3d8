import 'server-only';
import { fetch as undiciFetch } from 'undici';
import { LIMITS } from '@/lib/limits';
import type { WebSearchSetting } from '@/server/env';

/**
 * web_search through the provider the deployment configured (WEB_SEARCH_PROVIDER, ADR 060): SearXNG's JSON API
 * (`/search?q=…&format=json`), Brave's web search API, or Tavily's. The endpoint is the admin's, like a
 * deployment-wide MCP server, so it is not held to the egress rule (a self-hosted SearXNG often sits on a private
 * network); the pages the results name are, when web_fetch reads them. The answer is bounded in time and bytes, at
 * most LIMITS.web.searchResults results, each field cut; the key travels in a header, never in a result or origin.
 */

const W = LIMITS.web;

export type SearchResult = { title: string; url: string; snippet: string };

export class WebSearchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebSearchError';
  }
}

export async function webSearch(setting: WebSearchSetting, query: string, signal?: AbortSignal, timeoutMs: number = W.searchTimeoutMs): Promise<SearchResult[]> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const both = signal ? AbortSignal.any([deadline, signal]) : deadline;
  const [url, init] = request(setting, query);
  let res: Response;
  try {
    res = (await undiciFetch(url, { ...init, signal: both } as never)) as unknown as Response;
  } catch {
    throw new WebSearchError(deadline.aborted ? `The search provider did not answer within ${timeoutMs / 1000} s.` : signal?.aborted ? 'The search was cancelled with the run.' : 'The search provider could not be reached.');
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    throw new WebSearchError(`The search provider answered ${res.status}.`);
  }
  let data: unknown;
  try {
    data = JSON.parse(await boundedText(res, W.searchBytes));
  } catch (error) {
    if (error instanceof WebSearchError) throw error;
    throw new WebSearchError(deadline.aborted ? `The search provider did not answer within ${timeoutMs / 1000} s.` : 'The search provider sent an answer that is not JSON.');
  }
  return resultsOf(setting.provider, data).slice(0, W.searchResults);
}

function request(setting: WebSearchSetting, query: string): [URL, RequestInit] {
  const count = String(W.searchResults);
  switch (setting.provider) {
    case 'searxng': {
      const url = new URL(setting.url);
      if (!url.pathname.endsWith('/search')) url.pathname = `${url.pathname.replace(/\/$/, '')}/search`;
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      return [url, { headers: { accept: 'application/json' } }];
    }
    case 'brave': {
      const url = new URL(setting.url);
      url.searchParams.set('q', query);
      url.searchParams.set('count', count);
      return [url, { headers: { accept: 'application/json', 'x-subscription-token': setting.apiKey ?? '' } }];
    }
    case 'tavily':
      return [
        new URL(setting.url),
        {
          method: 'POST',
          headers: { accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${setting.apiKey ?? ''}` },
          body: JSON.stringify({ query, max_results: W.searchResults }),
        },
      ];
  }
}

async function boundedText(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new WebSearchError(`The search provider's answer is larger than ${maxBytes} bytes.`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const str = (value: unknown, max: number): string => (typeof value === 'string' ? value.replace(/\s+/g, ' ').trim().slice(0, max) : '');

function resultsOf(provider: WebSearchSetting['provider'], data: unknown): SearchResult[] {
  const d = (data ?? {}) as Record<string, unknown>;
  const list = provider === 'brave' ? (d.web as Record<string, unknown> | undefined)?.results : d.results;
  if (!Array.isArray(list)) return [];
  return list
    .map((item) => {
      const r = (item ?? {}) as Record<string, unknown>;
      return { title: str(r.title, 300), url: str(r.url, W.urlChars), snippet: str(provider === 'brave' ? r.description : r.content, 500) };
    })
    .filter((r) => /^https?:\/\//i.test(r.url));
}
