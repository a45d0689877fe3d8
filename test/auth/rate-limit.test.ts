import './support/next-auth';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { getDb, schema, writeTx } from '@/server/db';
import {
  addressKnown,
  clientAddress,
  eventsInWindow,
  KNOWN_ADDRESS_MS,
  rememberSignInAddress,
  limitBlock,
  limitCredentialsSignIn,
  recordLimitEvent,
  setSignInClock,
  signInRules,
  takeLimit,
  type LimitRule,
} from '@/server/auth/rate-limit';
import { makeUser } from '../support/users';
import { postCredentials, sessionCookieFrom } from './support/http-auth';

const T0 = Date.parse('2031-03-04T05:06:07.000Z');
let now = T0;
const at = (ms: number) => {
  now = T0 + ms;
};

beforeEach(async () => {
  await writeTx(async (tx) => {
    await tx.delete(schema.signInFailures);
    await tx.delete(schema.signInKnownAddresses);
  });
  now = T0;
  setSignInClock(() => now);
  // Most tests name the client's address with X-Forwarded-For, as a single reverse proxy would.
  vi.stubEnv('TRUST_PROXY', '1');
});
afterEach(() => {
  setSignInClock();
  vi.unstubAllEnvs();
});

const PASSWORD = 'correct horse battery'; // makeUser's password
const { pair, address: perAddress, account } = LIMITS.signIn;

describe('generic limiter (takeLimit, limitBlock)', () => {
  const rule: LimitRule = { key: 'test:a', max: 3, windowMs: 10_000 };

  it('admits max events in the window, refuses the next until the decisive one ages out (limit, one past)', async () => {
    for (let i = 0; i < 3; i++) {
      at(i * 1_000);
      expect((await takeLimit([rule])).ok).toBe(true);
    }
    at(2_500);
    const refused = await takeLimit([rule]);
    expect(refused).toEqual({ ok: false, retryAfterSeconds: 8 }); // the first (at 0 s) leaves at 10 s
    expect(await eventsInWindow(rule.key, rule.windowMs)).toBe(3); // a refused event is not counted
    at(9_999);
    expect(await limitBlock([rule])).toEqual({ retryAfterSeconds: 1 });
    at(10_000);
    expect(await limitBlock([rule])).toBeNull();
    expect((await takeLimit([rule])).ok).toBe(true);
  });

  it('release takes the event back (once), so a success does not count', async () => {
    for (let i = 0; i < 3; i++) {
      const taken = await takeLimit([rule]);
      if (!taken.ok) throw new Error('expected room');
      await taken.release();
      await taken.release();
    }
    expect(await eventsInWindow(rule.key, rule.windowMs)).toBe(0);
    expect(await limitBlock([rule])).toBeNull();
  });

  it('blocks when any rule is full and answers the longest wait', async () => {
    const short: LimitRule = { key: 'test:short', max: 1, windowMs: 5_000 };
    const long: LimitRule = { key: 'test:long', max: 2, windowMs: 60_000 };
    await recordLimitEvent([short, long]);
    at(1_000);
    await recordLimitEvent([long]);
    at(2_000);
    expect(await limitBlock([short])).toEqual({ retryAfterSeconds: 3 });
    expect(await limitBlock([short, long])).toEqual({ retryAfterSeconds: 58 });
    expect((await takeLimit([{ key: 'test:other', max: 1, windowMs: 5_000 }, long])).ok).toBe(false);
    expect(await eventsInWindow('test:other', 5_000)).toBe(0);
  });

  it('drops rows older than a day whatever their key', async () => {
    await recordLimitEvent([{ key: 'test:stale', max: 1, windowMs: 1_000 }]);
    at(24 * 60 * 60_000 + 1);
    await recordLimitEvent([rule]);
    expect((await getDb().select().from(schema.signInFailures)).map((r) => r.key)).toEqual(['test:a']);
  });
});

describe('clientAddress', () => {
  it('without TRUST_PROXY ignores X-Forwarded-For and X-Real-IP: every such request is one address', () => {
    vi.stubEnv('TRUST_PROXY', '');
    expect(clientAddress(new Headers({ 'x-forwarded-for': '203.0.113.7', 'x-real-ip': '10.9.9.9' }))).toBe('direct');
    expect(clientAddress(new Headers({ 'x-forwarded-for': '198.51.100.1' }))).toBe('direct');
    expect(clientAddress(new Headers())).toBe('direct');
  });

  it('with TRUST_PROXY=n takes the address n hops from the right', () => {
    const xff = new Headers({ 'x-forwarded-for': ' 6.6.6.6 , 203.0.113.7, 10.0.0.1 ' });
    vi.stubEnv('TRUST_PROXY', '1');
    expect(clientAddress(xff)).toBe('10.0.0.1');
    vi.stubEnv('TRUST_PROXY', '2');
    expect(clientAddress(xff)).toBe('203.0.113.7');
    // More trusted hops than entries: the leftmost, which a trusted proxy still wrote.
    vi.stubEnv('TRUST_PROXY', '5');
    expect(clientAddress(xff)).toBe('6.6.6.6');
  });

  it('treats a TRUST_PROXY that is not a hop count as 0', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    for (const value of ['true', '-1', '1.5', 'yes']) {
      vi.stubEnv('TRUST_PROXY', value);
      expect(clientAddress(new Headers({ 'x-forwarded-for': '203.0.113.7' }))).toBe('direct');
    }
    warn.mockRestore();
  });

  it('keys an attempt by (account, address), address and account, with the email normalized', () => {
    expect(signInRules('  Ann@Example.TEST ', '1.2.3.4').map((r) => r.key)).toEqual([
      'signin:pair:ann@example.test|1.2.3.4',
      'signin:account:ann@example.test',
      'signin:address:1.2.3.4',
    ]);
    expect(signInRules(null, 'direct').map((r) => r.key)).toEqual(['signin:address:direct']);
  });
});

describe('limitCredentialsSignIn (wrapper around next-auth POST)', () => {
  const fillAddress = async (address: string) => {
    for (let i = 0; i < perAddress.max; i++) await recordLimitEvent([{ key: `signin:address:${address}`, ...perAddress }]);
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
    await fillAddress('192.0.2.11');
    at(12_000);
    const delegate = vi.fn(async () => new Response(null, { status: 302 }));
    const res = await limitCredentialsSignIn(delegate)(credentialsPost('192.0.2.11'));
    expect(delegate).not.toHaveBeenCalled();
    expect(res.status).toBe(429);
    const wait = perAddress.windowMs / 1000 - 12;
    expect(res.headers.get('retry-after')).toBe(String(wait));
    expect(await res.json()).toEqual({
      error: { code: 'rate_limited', message: `Too many failed sign-ins. Try again in ${wait} seconds.` },
    });
  });

  it('counts attempts still inside next-auth: a concurrent burst past the pair limit never reaches it', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const delegate = vi.fn(async () => {
      await held;
      return new Response(null, { status: 302 });
    });
    const limited = limitCredentialsSignIn(delegate);
    let answered = 0;
    const burst = Array.from({ length: pair.max + 3 }, () =>
      limited(credentialsPost('192.0.2.14', 'burst@example.test')).finally(() => answered++),
    );
    // Must not happen: more than pair.max attempts handed to next-auth before any of them answered. Each attempt is
    // decided once its read of the counters returns (an await): hold next-auth until all of them were decided.
    await vi.waitFor(() => expect([delegate.mock.calls.length, answered]).toEqual([pair.max, 3]), { timeout: 2_000 });
    release();
    const statuses = (await Promise.all(burst)).map((res) => res.status);
    expect(statuses.filter((s) => s === 302)).toHaveLength(pair.max);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3);
    expect(delegate).toHaveBeenCalledTimes(pair.max);
    // Once they answered (and the fake next-auth recorded no failure), the next attempt goes through again.
    expect((await limited(credentialsPost('192.0.2.14', 'burst@example.test'))).status).toBe(302);
  });

  it('reads the email from a JSON body too', async () => {
    for (let i = 0; i < pair.max; i++) await recordLimitEvent(signInRules('json@example.test', '192.0.2.12'));
    const delegate = vi.fn(async () => new Response(null, { status: 302 }));
    const req = new Request('http://localhost/api/auth/callback/credentials', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.12' },
      body: JSON.stringify({ email: 'JSON@example.test', password: 'x' }),
    });
    expect((await limitCredentialsSignIn(delegate)(req)).status).toBe(429);
  });

  it('leaves other next-auth endpoints alone, even for a blocked address', async () => {
    await fillAddress('192.0.2.13');
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
  const expectInvalid = (res: Response) => {
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toContain('/sign-in?error=CredentialsSignin&code=invalid_credentials');
    expect(sessionCookieFrom(res)).toBeNull();
  };
  const expectSignedIn = (res: Response) => {
    expect(res.status).toBe(302);
    expect(sessionCookieFrom(res)).toMatch(/^authjs\.session-token=/);
  };
  const failTimes = async (email: string, address: (i: number) => string, times: number, stepMs = 1_000) => {
    for (let i = 0; i < times; i++) {
      at(i * stepMs);
      expectInvalid(await postCredentials({ email, password: 'wrong password', address: address(i) }));
    }
  };

  it('blocks a stranger after five failures, but the owner signs in from their own address', async () => {
    const ann = await makeUser('ann');
    await failTimes(ann.email, () => '198.51.100.66', pair.max);
    at(5_000);
    // Must not happen: the stranger's failures locking the owner out.
    expectSignedIn(await postCredentials({ email: ann.email, password: PASSWORD, address: '203.0.113.10' }));
    // The stranger, even with the right password, waits until the oldest failure leaves the minute.
    const stranger = await postCredentials({ email: ann.email, password: PASSWORD, address: '198.51.100.66' });
    expect(stranger.status).toBe(429);
    expect(stranger.headers.get('retry-after')).toBe('55');
    expect(sessionCookieFrom(stranger)).toBeNull();
    expect(await stranger.json()).toEqual({
      error: { code: 'rate_limited', message: 'Too many failed sign-ins. Try again in 55 seconds.' },
    });
  });

  it('without TRUST_PROXY, varied X-Forwarded-For values all count as one address and are all limited', async () => {
    vi.stubEnv('TRUST_PROXY', '0');
    const ann = await makeUser('ann');
    await failTimes(ann.email, (i) => `203.0.113.${i}`, pair.max);
    for (let i = 0; i < 20; i++) {
      at(6_000 + i);
      const res = await postCredentials({ email: ann.email, password: 'guess', address: `198.51.100.${i}` });
      expect(res.status).toBe(429);
    }
    expect(await eventsInWindow('signin:address:direct', perAddress.windowMs)).toBe(pair.max);
  });

  it('with TRUST_PROXY=1 uses the hop the proxy appended, not what the client put before it', async () => {
    const ann = await makeUser('ann');
    // The client varies its own claim; the proxy always appends the real 192.0.2.77.
    await failTimes(ann.email, (i) => `10.0.0.${i}, 192.0.2.77`, pair.max);
    at(5_000);
    expect((await postCredentials({ email: ann.email, password: PASSWORD, address: '10.0.0.200, 192.0.2.77' })).status).toBe(429);
    expect(await eventsInWindow(`signin:pair:${ann.email}|192.0.2.77`, pair.windowMs)).toBe(pair.max);
    expectSignedIn(await postCredentials({ email: ann.email, password: PASSWORD, address: '192.0.2.77, 192.0.2.78' }));
  });

  it('one address spraying many accounts is stopped at the per-address limit (limit, one past)', async () => {
    const ann = await makeUser('ann');
    for (let i = 0; i < perAddress.max; i++) {
      at(i * 1_000);
      expectInvalid(await postCredentials({ email: `guess${i}@example.test`, password: 'guess', address: '198.51.100.9' }));
    }
    at(perAddress.max * 1_000);
    expect((await postCredentials({ email: ann.email, password: PASSWORD, address: '198.51.100.9' })).status).toBe(429);
    expectSignedIn(await postCredentials({ email: ann.email, password: PASSWORD, address: '198.51.100.10' }));
  });

  it('IPv6: addresses of one /64 share the pair limit (limit, one past); another /64 is not held', async () => {
    const ann = await makeUser('ann');
    // Must not happen: a guesser rotating through its /64 getting a fresh pair counter for every address.
    await failTimes(ann.email, (i) => `2001:db8:77:1::${i + 1}`, pair.max);
    at(5_000);
    expect((await postCredentials({ email: ann.email, password: PASSWORD, address: '2001:db8:77:1:ab:cd:ef:1' })).status).toBe(429);
    expect(await eventsInWindow(`signin:pair:${ann.email}|2001:db8:77:1::/64`, pair.windowMs)).toBe(pair.max);
    expectSignedIn(await postCredentials({ email: ann.email, password: PASSWORD, address: '2001:db8:77:2::1' }));
  });

  it('an IPv4-mapped address is held with its IPv4 address', async () => {
    const ann = await makeUser('ann');
    // Must not happen: writing the same IPv4 address in its mapped form escaping that address's counters.
    await failTimes(ann.email, (i) => (i % 2 ? '192.0.2.44' : '::ffff:192.0.2.44'), pair.max);
    at(5_000);
    expect((await postCredentials({ email: ann.email, password: PASSWORD, address: '::ffff:c000:22c' })).status).toBe(429);
    expect((await postCredentials({ email: ann.email, password: PASSWORD, address: '192.0.2.44' })).status).toBe(429);
  });

  /** `count` failures against the account, one from each of as many addresses (counted directly: fast). */
  const spreadFailures = async (email: string, count: number, stepMs = 100) => {
    for (let i = 0; i < count; i++) {
      at(i * stepMs);
      await recordLimitEvent(signInRules(email, `10.1.${Math.floor(i / 250)}.${i % 250}`));
    }
  };

  it('the per-account ceiling holds across addresses (limit, one past), then lifts with its window', async () => {
    const ann = await makeUser('ann');
    // One failure from each of `account.max` addresses: no pair or address counter fills up. The last one goes
    // through the real door.
    await spreadFailures(ann.email, account.max - 1);
    at((account.max - 1) * 100);
    expectInvalid(await postCredentials({ email: ann.email, password: 'guess', address: '10.9.9.9' }));
    at(account.max * 100);
    const fresh = await postCredentials({ email: ann.email, password: PASSWORD, address: '203.0.113.200' });
    expect(fresh.status).toBe(429);
    expect(Number(fresh.headers.get('retry-after'))).toBe(account.windowMs / 1000 - account.max / 10);
    // Only this account: another one from the same address is unaffected.
    const bob = await makeUser('bob');
    expectSignedIn(await postCredentials({ email: bob.email, password: PASSWORD, address: '203.0.113.200' }));
    at(account.windowMs);
    expectSignedIn(await postCredentials({ email: ann.email, password: PASSWORD, address: '203.0.113.200' }));
  });

  it('a full account ceiling does not hold the owner out of an address they signed in from before (ADR 041)', async () => {
    const ann = await makeUser('ann');
    at(-60_000);
    expectSignedIn(await postCredentials({ email: ann.email, password: PASSWORD, address: '203.0.113.50' }));
    // Strangers at many addresses fill the ceiling (limit, and one failure past it through the real door).
    await spreadFailures(ann.email, account.max);
    at(account.max * 100);
    expectInvalid(await postCredentials({ email: ann.email, password: 'guess', address: '203.0.113.50' }));
    // Must not happen: strangers' failures elsewhere keeping the owner out of the address they use.
    expectSignedIn(await postCredentials({ email: ann.email, password: PASSWORD, address: '203.0.113.50' }));
    // A new address is still held; and failing there does not make an address known.
    expect((await postCredentials({ email: ann.email, password: PASSWORD, address: '203.0.113.51' })).status).toBe(429);
    expect(await addressKnown(ann.email, '10.1.0.1')).toBe(false);
    // The known address keeps its own limits: five wrong guesses from it, and the sixth attempt waits.
    for (let i = 0; i < pair.max - 1; i++) expectInvalid(await postCredentials({ email: ann.email, password: 'guess', address: '203.0.113.50' }));
    expect((await postCredentials({ email: ann.email, password: PASSWORD, address: '203.0.113.50' })).status).toBe(429);
  });

  it('an address stays known for 90 days after its last right password, not at 90 days', async () => {
    const ann = await makeUser('ann');
    await rememberSignInAddress(ann.email.toUpperCase(), '203.0.113.60');
    at(KNOWN_ADDRESS_MS - 1);
    expect(await addressKnown(ann.email, '203.0.113.60')).toBe(true);
    at(KNOWN_ADDRESS_MS);
    expect(await addressKnown(ann.email, '203.0.113.60')).toBe(false);
    expect(signInRules(ann.email, '203.0.113.60', true).map((r) => r.key)).toEqual([`signin:pair:${ann.email}|203.0.113.60`, 'signin:address:203.0.113.60']);
  });

  it('at one below the account ceiling a new address still gets in', async () => {
    const ann = await makeUser('ann');
    await spreadFailures(ann.email, account.max - 1);
    at(account.max * 100);
    expectSignedIn(await postCredentials({ email: ann.email, password: PASSWORD, address: '203.0.113.201' }));
  });

  it('a flood of concurrent wrong passwords gets no more than the limit past the check', async () => {
    const ann = await makeUser('ann');
    const results = await Promise.all(
      Array.from({ length: 30 }, () => postCredentials({ email: ann.email, password: 'guess', address: '198.51.100.30' })),
    );
    const limited = results.filter((r) => r.status === 429 || r.headers.get('location')?.includes('code=rate_limited'));
    expect(results.length - limited.length).toBe(pair.max);
    expect(await eventsInWindow(`signin:pair:${ann.email}|198.51.100.30`, pair.windowMs)).toBe(pair.max);
  });

  it('a successful sign-in is not counted and resets nothing', async () => {
    const ann = await makeUser('ann');
    await failTimes(ann.email, () => '198.51.100.5', pair.max - 1);
    at(4_000);
    expectSignedIn(await postCredentials({ email: ann.email, password: PASSWORD, address: '198.51.100.5' }));
    expect(await eventsInWindow(`signin:pair:${ann.email}|198.51.100.5`, pair.windowMs)).toBe(pair.max - 1);
    at(5_000);
    expectInvalid(await postCredentials({ email: ann.email, password: 'guess', address: '198.51.100.5' }));
    at(6_000);
    expect((await postCredentials({ email: ann.email, password: PASSWORD, address: '198.51.100.5' })).status).toBe(429);
  });

  it('refuses inside authorize too when a request gets past the wrapper (a race), without counting it', async () => {
    const ann = await makeUser('ann');
    for (let i = 0; i < pair.max; i++) await recordLimitEvent(signInRules(ann.email, '198.51.100.6'));
    const { handlers } = await import('@/server/auth/config');
    const res = await postCredentials({ email: ann.email, password: PASSWORD, address: '198.51.100.6' }, handlers.POST);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toContain('error=CredentialsSignin&code=rate_limited');
    expect(sessionCookieFrom(res)).toBeNull();
    expect(await eventsInWindow(`signin:pair:${ann.email}|198.51.100.6`, pair.windowMs)).toBe(pair.max);
  });
});
