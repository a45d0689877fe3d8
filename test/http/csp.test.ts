import { describe, expect, it } from 'vitest';
import { NextRequest } from 'next/server';
import { config, contentSecurityPolicy, proxy } from '@/proxy';
import { NONCE_HEADER } from '@/lib/request-path';

const directive = (csp: string, name: string) => csp.split('; ').find((d) => d.startsWith(`${name} `)) ?? '';

describe('page CSP (proxy.ts)', () => {
  it("scripts need the nonce; no 'unsafe-inline' scripts; framing and plugins forbidden", () => {
    const csp = contentSecurityPolicy('abc123', false);
    expect(directive(csp, 'script-src')).toBe("script-src 'self' 'nonce-abc123' 'strict-dynamic'");
    expect(directive(csp, 'frame-ancestors')).toBe("frame-ancestors 'none'");
    expect(directive(csp, 'object-src')).toBe("object-src 'none'");
    expect(directive(csp, 'base-uri')).toBe("base-uri 'self'");
    expect(csp).not.toContain('unsafe-eval');
    expect(directive(contentSecurityPolicy('n', true), 'script-src')).toContain("'unsafe-eval'"); // next dev only
  });

  it('puts a fresh nonce and its CSP on the request (for Next and the layout) and on the response', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const res = proxy(new NextRequest('http://localhost/agents'));
      const csp = res.headers.get('content-security-policy') ?? '';
      const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
      expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/); // 16 random bytes
      seen.add(nonce!);
      // NextResponse.next({ request: { headers } }) forwards request headers as x-middleware-request-*.
      expect(res.headers.get(`x-middleware-request-${NONCE_HEADER}`)).toBe(nonce);
      expect(res.headers.get('x-middleware-request-content-security-policy')).toBe(csp);
    }
    expect(seen.size).toBe(3);
  });

  it('never runs for API routes (Next would copy their bodies for it)', () => {
    const matcher = new RegExp(`^${config.matcher[0]!}$`);
    expect(matcher.test('/agents')).toBe(true);
    expect(matcher.test('/api/v1/agents')).toBe(false);
    expect(matcher.test('/api/auth/callback/credentials')).toBe(false);
  });
});
