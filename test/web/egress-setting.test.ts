import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { env, environmentProblems } from '@/server/env';
import { fetchPage, WebFetchError } from '@/server/web/fetch-page';
import { startStub, type Stub } from './stub-server';

// One allow setting for every outbound call an account makes (ADR 060): EGRESS_ALLOW, with the older
// MCP_EGRESS_ALLOW still read and added. What must not happen: a deployment configured with the older name losing
// its ranges, or a malformed list starting the server with an allow rule nobody meant.

let site: Stub;
beforeAll(async () => {
  site = await startStub('127.0.0.2');
});
afterAll(() => site.close());
afterEach(() => vi.unstubAllEnvs());

describe('the egress allow setting', () => {
  it('EGRESS_ALLOW and MCP_EGRESS_ALLOW are read together', () => {
    vi.stubEnv('EGRESS_ALLOW', '10.1.0.0/16');
    vi.stubEnv('MCP_EGRESS_ALLOW', '127.0.0.2/32');
    expect(env.egressAllow).toBe('10.1.0.0/16,127.0.0.2/32');
    vi.stubEnv('EGRESS_ALLOW', '');
    vi.stubEnv('MCP_EGRESS_ALLOW', '');
    expect(env.egressAllow).toBeUndefined();
  });

  it('the older name alone still lets a web fetch reach its range; with neither set, the same fetch is refused', async () => {
    vi.stubEnv('MCP_EGRESS_ALLOW', '127.0.0.2/32');
    expect((await fetchPage(`${site.base}/markdown`)).mediaType).toBe('text/markdown');
    vi.stubEnv('MCP_EGRESS_ALLOW', '');
    const before = site.requests.length;
    await expect(fetchPage(`${site.base}/markdown`)).rejects.toSatisfy((e: unknown) => e instanceof WebFetchError && e.kind === 'egress');
    expect(site.requests.length).toBe(before);
  });

  it('start-up names a malformed list', () => {
    vi.stubEnv('EGRESS_ALLOW', '127.0.0.1/32, localhost');
    expect(environmentProblems().map((p) => p.variable)).toContain('EGRESS_ALLOW');
  });

  it('start-up names a Brave or Tavily provider without its key', () => {
    vi.stubEnv('WEB_SEARCH_PROVIDER', 'brave');
    expect(environmentProblems().find((p) => p.variable === 'WEB_SEARCH_API_KEY')).toMatchObject({ secret: true });
    expect(env.webSearch).toBeUndefined();
    vi.stubEnv('WEB_SEARCH_API_KEY', 'k');
    expect(environmentProblems().map((p) => p.variable)).not.toContain('WEB_SEARCH_API_KEY');
    expect(env.webSearch).toEqual({ provider: 'brave', url: 'https://api.search.brave.com/res/v1/web/search', apiKey: 'k' });
    vi.stubEnv('WEB_SEARCH_PROVIDER', 'bing');
    expect(environmentProblems().map((p) => p.variable)).toContain('WEB_SEARCH_PROVIDER');
  });
});
