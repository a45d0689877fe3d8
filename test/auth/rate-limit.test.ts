import './support/next-auth';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { getDb, schema } from '@/server/db';
import {
  clientAddress,
  failuresInWindow,
  limitCredentialsSignIn,
  recordSignInFailure,
  setSignInClock,
  signInBlock,
  signInKeys,
} from '@/server/auth/rate-limit';
import { makeUser } from '../support/users';
import { postCredentials, sessionCookieFrom } from './support/http-auth';

const T0 = Date.parse('2031-03-04T05:06:07.000Z');
let now = T0;
const at = (ms: number) => {
  now = T0 + ms;
};

beforeEach(() => {
  getDb().delete(schema.signInFailures).run();
  now = T0;
  setSignInClock(() => now);
});
afterEach(() => setSignInClock());

const PASSWORD = 'correct horse battery'; // makeUser's password

describe('clientAddress', () => {
  it('takes the first x-forwarded-for hop, else x-real-ip, else "local"', () => {
    expect(clientAddress(new Headers({ 'x-forwarded-for': ' 203.0.113.7 , 10.0.0.1', 'x-real-ip': '10.9.9.9' }))).toBe('203.0.113.7');
    expect(clientAddress(new Headers({ 'x-real-ip': ' 10.9.9.9 ' }))).toBe('10.9.9.9');
    expect(clientAddress(new Headers({ 'x-forwarded-for': ' ' }))).toBe('local');
    expect(clientAddress(new Headers())).toBe('local');
  });

  it('keys an attempt by normalized email and by address', () => {
    expect(signInKeys('  Ann@Example.TEST ', '1.2.3.4')).toEqual(['email:ann@example.test', 'address:1.2.3.4']);
    expect(signInKeys(null, 'local')).toEqual(['address:local']);
  });
});

describe('signInBlock', () => {
  it('blocks a key on its fifth failure in the window until the decisive failure ages out', () => {
    const keys = ['email:a@example.test'];
    for (let i = 0; i < 4; i++) {
      at(i * 10_000);
      recordSignInFailure(keys);
    }
    expect(signInBlock(keys)).toBeNull();
    at(40_000);
    recordSignInFailure(keys);
    at(45_000);
    // The oldest failure (at 0 s) leaves the window at 60 s: 15 s from now.
    expect(signInBlock(keys)).toEqual({ retryAfterSeconds: 15 });
    at(59_999);
    expect(signInBlock(keys)).toEqual({ retryAfterSeconds: 1 });
    at(60_000);
    expect(signInBlock(keys)).toBeNull();
    expect(failuresInWindow('email:a@example.test')).toBe(4);
  });

  it('answers the longest wait when both keys are blocked, and blocks when either is', () => {
    const [email, address] = signInKeys('b@example.test', '192.0.2.1');
    for (let i = 0; i < 5; i++) {
      at(i * 1_000);
      recordSignInFailure([email!]);
    }
    for (let i = 0; i < 5; i++) {
      at(20_000 + i * 1_000);
      recordSignInFailure([address!]);
    }
    at(30_000);
    expect(signInBlock([email!])).toEqual({ retryAfterSeconds: 30 });
    expect(signInBlock([address!])).toEqual({ retryAfterSeconds: 50 });
    expect(signInBlock([email!, address!])).toEqual({ retryAfterSeconds: 50 });
    expect(signInBlock(['address:198.51.100.1'])).toBeNull();
  });

  it('prunes failures that left the window when it records a new one', () => {
    recordSignInFailure(['email:old@example.test', 'address:203.0.113.1']);
    at(61_000);
    recordSignInFailure(['email:new@example.test']);
    const keys = getDb().select().from(schema.signInFailures).all().map((r) => r.key);
    expect(keys).toEqual(['email:new@example.test']);
  });
});

describe('limitCredentialsSignIn (wrapper around next-auth POST)', () => {
  const block = (address: string) => {
    for (let i = 0; i < 5; i++) recordSignInFailure([`address:${address}`]);
  };
  const credentialsPost = (address: string, email = 'c@example.test') =>
    new Request('http://localhost/api/auth/callback/credentials', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
      body: new URLSearchParams({ email, password: 'x', csrfToken: 't' }),
    });

  it('delegates with the body still unread while nothing is blocked', async () => {
    const delegate = vi.fn(async (req: Request) => new Response(await req.text(), { status: 302 }));
    const res = await limitCredentialsSignIn(delegate)(credentialsPost('192.0.2.10'));
    expect(delegate).toHaveBeenCalledTimes(1);
    expect(res.status).toBe(302);
    expect(await res.text()).toContain('email=c%40example.test');
  });

  it('answers 429 with Retry-After without calling next-auth while blocked', async () => {
    block('192.0.2.11');
    at(12_000);
    const delegate = vi.fn(async () => new Response(null, { status: 302 }));
    const res = await limitCredentialsSignIn(delegate)(credentialsPost('192.0.2.11'));
    expect(delegate).not.toHaveBeenCalled();
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('48');
    expect(await res.json()).toEqual({
      error: { code: 'rate_limited', message: 'Too many failed sign-ins. Try again in 48 seconds.' },
    });
  });

  it('reads the email from a JSON body too', async () => {
    for (let i = 0; i < 5; i++) recordSignInFailure(['email:json@example.test']);
    const delegate = vi.fn(async () => new Response(null, { status: 302 }));
    const req = new Request('http://localhost/api/auth/callback/credentials', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.12' },
      body: JSON.stringify({ email: 'JSON@example.test', password: 'x' }),
    });
    expect((await limitCredentialsSignIn(delegate)(req)).status).toBe(429);
  });

  it('leaves other next-auth endpoints alone, even for a blocked address', async () => {
    block('192.0.2.13');
    const delegate = vi.fn(async () => new Response('ok'));
    const limited = limitCredentialsSignIn(delegate);
    const signout = new Request('http://localhost/api/auth/signout', { method: 'POST', headers: { 'x-forwarded-for': '192.0.2.13' } });
    const csrf = new Request('http://localhost/api/auth/csrf', { headers: { 'x-forwarded-for': '192.0.2.13' } });
    expect((await limited(signout)).status).toBe(200);
    expect((await limited(csrf)).status).toBe(200);
    expect(delegate).toHaveBeenCalledTimes(2);
  });
});

describe('POST /api/auth/callback/credentials', () => {
  const failTimes = async (email: string, address: (i: number) => string, times = 5) => {
    for (let i = 0; i < times; i++) {
      at(i * 1_000);
      const res = await postCredentials({ email, password: 'wrong password', address: address(i) });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toContain('/sign-in?error=CredentialsSignin&code=invalid_credentials');
      expect(sessionCookieFrom(res)).toBeNull();
    }
  };

  it('answers the sixth attempt after five failures with 429 and Retry-After, even with the right password', async () => {
    const ann = await makeUser('ann');
    await failTimes(ann.email, () => '198.51.100.1');
    at(5_000);
    const res = await postCredentials({ email: ann.email, password: PASSWORD, address: '198.51.100.1' });
    expect(res.status).toBe(429);
    // The oldest failure (at 0 s) leaves the one-minute window 55 s from now.
    expect(res.headers.get('retry-after')).toBe('55');
    expect(sessionCookieFrom(res)).toBeNull();
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error).toEqual({ code: 'rate_limited', message: 'Too many failed sign-ins. Try again in 55 seconds.' });
  });

  it('limits a different account from the same address', async () => {
    const ann = await makeUser('ann');
    const bob = await makeUser('bob');
    await failTimes(ann.email, () => '198.51.100.2');
    at(10_000);
    const fromSameAddress = await postCredentials({ email: bob.email, password: PASSWORD, address: '198.51.100.2' });
    expect(fromSameAddress.status).toBe(429);
    expect(fromSameAddress.headers.get('retry-after')).toBe('50');
    const fromElsewhere = await postCredentials({ email: bob.email, password: PASSWORD, address: '198.51.100.3' });
    expect(fromElsewhere.status).toBe(302);
    expect(sessionCookieFrom(fromElsewhere)).toMatch(/^authjs\.session-token=/);
  });

  it('limits the same account from another address', async () => {
    const ann = await makeUser('ann');
    // Five addresses, one failure each: only the account's counter reaches five.
    await failTimes(ann.email, (i) => `203.0.113.${10 + i}`);
    at(5_000);
    const res = await postCredentials({ email: ann.email, password: PASSWORD, address: '203.0.113.99' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('55');
    // The email key is normalized: case and spaces don't escape it.
    const shouted = await postCredentials({ email: ` ${ann.email.toUpperCase()} `, password: PASSWORD, address: '203.0.113.98' });
    expect(shouted.status).toBe(429);
  });

  it('does not count blocked attempts, and lets the right password in once the window has passed', async () => {
    const ann = await makeUser('ann');
    await failTimes(ann.email, () => '198.51.100.4');
    for (let i = 0; i < 3; i++) {
      at(30_000 + i);
      expect((await postCredentials({ email: ann.email, password: 'wrong again', address: '198.51.100.4' })).status).toBe(429);
    }
    expect(failuresInWindow(`email:${ann.email}`)).toBe(5);
    at(59_999);
    expect((await postCredentials({ email: ann.email, password: PASSWORD, address: '198.51.100.4' })).status).toBe(429);
    at(60_000); // the first failure (at 0 s) has left the window
    const res = await postCredentials({ email: ann.email, password: PASSWORD, address: '198.51.100.4' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('http://localhost/agents');
    expect(sessionCookieFrom(res)).toMatch(/^authjs\.session-token=/);
  });

  it('keeps counting after a successful sign-in: success resets no counter', async () => {
    const ann = await makeUser('ann');
    const strangers = ['x1@example.test', 'x2@example.test', 'x3@example.test', 'x4@example.test'];
    for (const [i, email] of strangers.entries()) {
      at(i * 1_000);
      await postCredentials({ email, password: 'guess', address: '198.51.100.5' });
    }
    at(4_000);
    expect((await postCredentials({ email: ann.email, password: PASSWORD, address: '198.51.100.5' })).status).toBe(302);
    expect(failuresInWindow('address:198.51.100.5')).toBe(4);
    at(5_000);
    await postCredentials({ email: 'x5@example.test', password: 'guess', address: '198.51.100.5' });
    at(6_000);
    expect((await postCredentials({ email: ann.email, password: PASSWORD, address: '198.51.100.5' })).status).toBe(429);
  });

  it('refuses inside authorize too when a request gets past the wrapper (a race), without counting it', async () => {
    const ann = await makeUser('ann');
    for (let i = 0; i < 5; i++) recordSignInFailure([`email:${ann.email}`]);
    const { handlers } = await import('@/server/auth/config');
    const res = await postCredentials({ email: ann.email, password: PASSWORD, address: '198.51.100.6' }, handlers.POST);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toContain('error=CredentialsSignin&code=rate_limited');
    expect(sessionCookieFrom(res)).toBeNull();
    expect(failuresInWindow(`email:${ann.email}`)).toBe(5);
  });
});
