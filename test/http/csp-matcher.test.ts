import { unstable_doesMiddlewareMatch } from 'next/experimental/testing/server';
import { describe, expect, it } from 'vitest';
import { config } from '@/proxy';

/**
 * Which paths the proxy (the page CSP, ADR 010) runs for, as Next itself matches them. What must not happen: a page
 * whose path has a dot in it (a team or conversation id, a slug like `v1.2`) served without the nonce CSP, or an API
 * route sent through the proxy (Next would copy its request body for it).
 */
const runsFor = (path: string) => unstable_doesMiddlewareMatch({ config, url: `http://localhost${path}` });

describe('proxy matcher', () => {
  it.each(['/', '/teams', '/teams/a.b', '/teams/a.b/settings', '/conversations/v1.2', '/agents/x.json', '/settings?tab=a.b'])('runs for the page %s', (path) => {
    expect(runsFor(path)).toBe(true);
  });

  it.each(['/api/v1/agents', '/api/v1/teams/a.b', '/api/auth/callback/credentials', '/_next/static/chunks/main.js', '/_next/image'])('never runs for %s', (path) => {
    expect(runsFor(path)).toBe(false);
  });
});
