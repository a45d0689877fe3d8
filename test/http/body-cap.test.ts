import '../auth/support/next-auth';
import { describe, expect, it } from 'vitest';
import { NextRequest } from 'next/server';
import { POST as createAgentRoute } from '@/app/api/v1/agents/route';
import { POST as authPost } from '@/app/api/auth/[...nextauth]/route';
import { LIMITS } from '@/lib/limits';
import { readJson } from '@/server/http/route';
import { cookiesFrom, sessionCookieFrom } from '../auth/support/http-auth';
import { makeUser } from '../support/users';
import { databaseFingerprint } from '../security/support';

const CAP = LIMITS.requestBodyBytes;
const CHUNK = 16 * 1024;

/**
 * A chunked body (no Content-Length) far above the cap, produced on demand, that counts what was pulled from it.
 * What must not happen: the server reading (buffering) it to the end before refusing it.
 */
function hugeStream(totalBytes = 1024 * 1024 * 1024, fill = 0x20) {
  const state = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (state.pulled >= totalBytes) return controller.close();
        state.pulled += CHUNK;
        controller.enqueue(new Uint8Array(CHUNK).fill(fill));
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

const post = (url: string, body: BodyInit, headers: Record<string, string> = {}) =>
  new Request(url, { method: 'POST', body, headers, duplex: 'half' } as RequestInit);

/** JSON text of exactly n bytes: {"a":"xxx…"}. */
const jsonOfBytes = (n: number) => JSON.stringify({ a: 'x'.repeat(n - 8) });

describe('readJson reads at most the cap (plus one chunk) of a streamed body', () => {
  it('refuses a 1 GB chunked body with 413 after reading no more than cap + one chunk, and cancels it', async () => {
    const { stream, state } = hugeStream();
    const req = post('http://localhost/x', stream);
    expect(req.headers.get('content-length')).toBeNull();
    await expect(readJson(req)).rejects.toMatchObject({ status: 413, code: 'payload_too_large' });
    expect(state.pulled).toBeGreaterThan(CAP);
    expect(state.pulled).toBeLessThanOrEqual(CAP + CHUNK);
    expect(state.cancelled).toBe(true);
  });

  it('refuses a declared Content-Length over the cap without reading anything', async () => {
    const { stream, state } = hugeStream();
    const req = post('http://localhost/x', stream, { 'content-length': String(CAP + 1) });
    await expect(readJson(req)).rejects.toMatchObject({ status: 413 });
    expect(state.pulled).toBe(0);
  });

  it('accepts exactly the cap and refuses one byte more (streamed, no Content-Length)', async () => {
    const stream = (text: string) =>
      new ReadableStream<Uint8Array>({
        start(c) {
          const bytes = new TextEncoder().encode(text);
          for (let i = 0; i < bytes.length; i += 1000) c.enqueue(bytes.slice(i, i + 1000));
          c.close();
        },
      });
    const atCap = jsonOfBytes(CAP);
    expect(Buffer.byteLength(atCap)).toBe(CAP);
    await expect(readJson(post('http://localhost/x', stream(atCap)))).resolves.toEqual(JSON.parse(atCap));
    await expect(readJson(post('http://localhost/x', stream(jsonOfBytes(CAP + 1))))).rejects.toMatchObject({ status: 413 });
  });
});

describe('routes', () => {
  it('POST /api/v1/agents with a huge chunked body: 413, nothing read past the cap, nothing written', async () => {
    const ann = await makeUser('ann');
    const before = await databaseFingerprint();
    const { stream, state } = hugeStream();
    const res = await createAgentRoute(post('http://localhost/api/v1/agents', stream, { ...ann.auth, 'content-type': 'application/json' }), undefined);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
    expect(state.pulled).toBeLessThanOrEqual(CAP + CHUNK);
    expect(await databaseFingerprint()).toBe(before);
  });

  it("next-auth's POST endpoints: a huge chunked body is 413 before next-auth or the limiter read it", async () => {
    const { stream, state } = hugeStream(1024 * 1024 * 1024, 0x61);
    const req = new NextRequest('http://localhost/api/auth/callback/credentials', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: stream,
      duplex: 'half',
    } as ConstructorParameters<typeof NextRequest>[1]);
    const res = await authPost(req);
    expect(res.status).toBe(413);
    expect(state.pulled).toBeLessThanOrEqual(CAP + CHUNK);
    expect(state.cancelled).toBe(true);
  });

  it('a sign-in within the cap still reaches next-auth intact, even streamed without Content-Length', async () => {
    const ann = await makeUser('ann');
    const { GET } = await import('@/app/api/auth/[...nextauth]/route');
    const csrf = await GET(new NextRequest('http://localhost/api/auth/csrf'));
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const form = new URLSearchParams({ email: ann.email, password: 'correct horse battery', csrfToken, callbackUrl: '/agents' });
    const bytes = new TextEncoder().encode(form.toString());
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, 10));
        c.enqueue(bytes.slice(10));
        c.close();
      },
    });
    const res = await authPost(
      new NextRequest('http://localhost/api/auth/callback/credentials', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookiesFrom(csrf) },
        body,
        duplex: 'half',
      } as ConstructorParameters<typeof NextRequest>[1]),
    );
    expect(res.status).toBe(302);
    expect(sessionCookieFrom(res)).toMatch(/authjs\.session-token=/);
  });
});
