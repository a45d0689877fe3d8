// test: own process: installs the peer address header on Node's HTTP server, which stays installed for the process
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { installPeerAddressHeader } from '@/server/auth/client-address';
import { installSignInBurstGuard } from '@/server/auth/sign-in-burst-guard';

const MAX = LIMITS.signIn.concurrentPerAddress;
/** What the stand-in app holds until released: the doors the guard counts (and an escaped spelling of one). */
const HELD = ['/api/auth/callback/credentials', '/sign-in/submit', '/sign-up/submit', '/sign-in/%73ubmit'];

// A real Node HTTP server standing in for `next start`: its handler holds sign-in requests until released, so the
// test controls how many are "inside Next" at once.
let server: http.Server;
let base: string;
let handled = 0;
const held: Array<() => void> = [];

beforeAll(async () => {
  installPeerAddressHeader();
  installSignInBurstGuard();
  server = http.createServer((req, res) => {
    handled += 1;
    if (req.method === 'POST' && HELD.some((path) => req.url?.startsWith(path))) {
      held.push(() => res.end('handled'));
      return;
    }
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());
afterEach(() => vi.unstubAllEnvs());

const signIn = (forwardedFor?: string, path = '/api/auth/callback/credentials') =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
    body: 'email=a%40example.test&password=wrong',
  });

async function until(condition: () => boolean, ms = 2_000) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('sign-in burst guard', () => {
  it(`hands at most ${MAX} concurrent sign-ins from one address to the app; the rest get 429 at once`, async () => {
    handled = 0;
    const burst = Array.from({ length: MAX + 5 }, () => signIn());
    await until(() => held.length === MAX);
    // The refused ones answered while the others are still held: they never reached the app.
    const refused = await Promise.all(burst.slice(MAX));
    expect(refused.map((r) => r.status)).toEqual(Array(5).fill(429));
    expect(refused[0]!.headers.get('retry-after')).toBe('1');
    expect(await refused[0]!.json()).toMatchObject({ error: { code: 'rate_limited' } });
    // Must not happen: more than MAX sign-ins handled by the app at once.
    expect(handled).toBe(MAX);

    // Other requests from the same address are not held up or refused meanwhile.
    const other = await fetch(`${base}/api/health`);
    expect(other.status).toBe(200);

    held.splice(0).forEach((release) => release());
    const admitted = await Promise.all(burst.slice(0, MAX));
    expect(admitted.map((r) => r.status)).toEqual(Array(MAX).fill(200));

    // Once they finished, the address may sign in again.
    const again = signIn();
    await until(() => held.length === 1);
    held.splice(0).forEach((release) => release());
    expect((await again).status).toBe(200);
  });

  it('counts every address of one IPv6 /64 as one address (limit, one past)', async () => {
    vi.stubEnv('TRUST_PROXY', '1');
    handled = 0;
    // Must not happen: a client spreading its burst over the addresses of its /64 to get past the guard.
    const burst = Array.from({ length: MAX }, (_, i) => signIn(`2001:db8:5:6::${i + 1}`));
    await until(() => held.length === MAX);
    const past = await signIn('2001:db8:5:6:ffff::1');
    expect(past.status).toBe(429);
    // Another /64 is another address.
    const other = signIn('2001:db8:5:7::1');
    await until(() => held.length === MAX + 1);
    held.splice(0).forEach((release) => release());
    expect((await Promise.all([...burst, other])).map((r) => r.status)).toEqual(Array(MAX + 1).fill(200));
    expect(handled).toBe(MAX + 1);
  });

  it("counts the account forms' posts too, with the credentials callback, as one count per address", async () => {
    handled = 0;
    // Must not happen: a burst spread over the three doors (or an escaped spelling of one) getting past the guard.
    const paths = ['/sign-in/submit', '/sign-up/submit', '/api/auth/callback/credentials', '/sign-in/%73ubmit'];
    const burst = Array.from({ length: MAX }, (_, i) => signIn(undefined, paths[i % paths.length]));
    await until(() => held.length === MAX);
    for (const path of paths) expect((await signIn(undefined, path)).status, path).toBe(429);
    // A GET of the form's path is not a sign-in: it passes.
    expect((await fetch(`${base}/sign-in/submit`)).status).toBe(200);
    expect(handled).toBe(MAX + 1);
    held.splice(0).forEach((release) => release());
    expect((await Promise.all(burst)).map((r) => r.status)).toEqual(Array(MAX).fill(200));
  });
});
