import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { getDb, schema } from '@/server/db';
import { takeWebCall, type RateAnswer } from '@/server/web/rate';
import { makeUser } from '../support/users';

// The per-account web rate (ADR 060), counted in the database so it holds across processes. Runs on SQLite here and
// on Postgres under `npm run test:pg`. What must not happen: an account making more than 30 web calls in any sixty
// seconds — by calling at once, from a second copy of the module (Next loads one per route bundle) or from another
// process on the same database — or one account's calls slowing another's.

const root = path.resolve(__dirname, '../..');
const RATE = 30;
const ok: RateAnswer = { ok: true };

/** Another process on this file's database takes `count` calls for the owner at `at`. */
function takeInAnotherProcess(ownerId: string, count: number, at: number): Promise<RateAnswer[]> {
  const child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', path.join(__dirname, 'fixtures/take-web-calls.ts'), ownerId, String(count), String(at)], {
    cwd: root,
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const bound = setTimeout(() => child.kill('SIGKILL'), 50_000);
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => {
      clearTimeout(bound);
      if (code === 0) resolve(JSON.parse(out) as RateAnswer[]);
      else reject(new Error(`the other process exited ${code}: ${err}`));
    }),
  );
}

describe('the per-account web rate', () => {
  it('allows 30 calls in a minute and refuses the 31st with when to retry; the window slides', async () => {
    const frank = await makeUser('frank');
    const now = Date.now();
    // 30 calls a second apart: the 31st, at the 29th second, waits until the first leaves the window (at 60 s).
    for (let i = 0; i < RATE; i++) expect(await takeWebCall(frank.id, now + i * 1_000)).toEqual(ok);
    expect(await takeWebCall(frank.id, now + 29_000)).toEqual({ ok: false, retryAfterSeconds: 31 });
    expect(await takeWebCall(frank.id, now + 59_999)).toEqual({ ok: false, retryAfterSeconds: 1 });
    // A minute after the first, exactly one call is free again; the next waits for the second call's minute.
    expect(await takeWebCall(frank.id, now + 60_000)).toEqual(ok);
    expect(await takeWebCall(frank.id, now + 60_000)).toEqual({ ok: false, retryAfterSeconds: 1 });
    // A refused call is not counted: after the window, the account has its whole rate again.
    for (let i = 0; i < RATE; i++) expect(await takeWebCall(frank.id, now + 200_000)).toEqual(ok);
    expect(await takeWebCall(frank.id, now + 200_000)).toMatchObject({ ok: false });
    // The account's rows past the window were dropped: at most the rate's rows are kept.
    const rows = await getDb().select().from(schema.webCalls);
    expect(rows.filter((r) => r.ownerId === frank.id)).toHaveLength(RATE);
  });

  it("another account is unaffected by one at its limit, and can't use up the other's calls", async () => {
    const heavy = await makeUser('heavy');
    const light = await makeUser('light');
    const now = Date.now();
    for (let i = 0; i < RATE; i++) expect(await takeWebCall(heavy.id, now)).toEqual(ok);
    expect(await takeWebCall(heavy.id, now)).toMatchObject({ ok: false });
    for (let i = 0; i < RATE; i++) expect(await takeWebCall(light.id, now)).toEqual(ok);
    expect(await takeWebCall(light.id, now)).toMatchObject({ ok: false });
  });

  it('calls made at once take exactly the rate: none slips past the count', async () => {
    const burst = await makeUser('burst');
    const now = Date.now();
    // On Postgres these run on the pool's several connections at the same time, as several processes would.
    const answers = await Promise.all(Array.from({ length: RATE + 10 }, () => takeWebCall(burst.id, now)));
    expect(answers.filter((a) => a.ok)).toHaveLength(RATE);
    expect(answers.filter((a) => !a.ok)).toHaveLength(10);
  });

  it('a second copy of the module (another route bundle) shares the count', async () => {
    const copies = await makeUser('copies');
    const now = Date.now();
    for (let i = 0; i < RATE - 1; i++) expect(await takeWebCall(copies.id, now)).toEqual(ok);
    vi.resetModules();
    const other = (await import('@/server/web/rate')).takeWebCall;
    expect(other).not.toBe(takeWebCall);
    expect(await other(copies.id, now)).toEqual(ok);
    expect(await other(copies.id, now)).toMatchObject({ ok: false });
    expect(await takeWebCall(copies.id, now)).toMatchObject({ ok: false });
  });

  it('another process on the same database shares the count', async () => {
    const shared = await makeUser('shared');
    const bystander = await makeUser('bystander');
    const now = Date.now();
    for (let i = 0; i < 20; i++) expect(await takeWebCall(shared.id, now)).toEqual(ok);
    // The other process has only what this one left: 10 of its 15 calls, then refusals.
    const theirs = await takeInAnotherProcess(shared.id, 15, now + 1_000);
    expect(theirs.slice(0, 10)).toEqual(Array.from({ length: 10 }, () => ok));
    expect(theirs.slice(10)).toEqual(Array.from({ length: 5 }, () => ({ ok: false, retryAfterSeconds: 59 })));
    // …and this process sees its calls: the account is at its limit here too.
    expect(await takeWebCall(shared.id, now + 2_000)).toEqual({ ok: false, retryAfterSeconds: 58 });
    // The other process's calls were the shared account's only: another account still has its whole rate.
    const bystanders = await takeInAnotherProcess(bystander.id, RATE + 1, now + 2_000);
    expect(bystanders.filter((a) => a.ok)).toHaveLength(RATE);
    expect(bystanders.at(-1)).toMatchObject({ ok: false });
  }, 120_000);
});
