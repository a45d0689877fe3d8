import { afterEach, describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { openDatabase } from '@/server/db';
import { statement } from '@/server/db/statement';
import { AppError } from '@/server/http/errors';
import { setSharedStreamSlots, SharedStreamSlots } from '@/server/push/shared-stream-slots';
import { claimStreamSlot, closeAllStreams, openStreamCount } from '@/server/push/streams';
import { makeUser } from '@/test/support/users';
import { until } from '@/test/support/wait';

// The per-account cap on open event streams (LIMITS.push.maxStreamsPerAccount) with several processes on one
// database (server/push/shared-stream-slots.ts). This file's process is "A" (the real streams.ts); "B" is another
// process's slot connection. What must not happen: an account holding more than the cap's streams over all processes
// (each process counting only its own would allow the cap per process), or a dead process's streams counting forever.

const MAX = LIMITS.push.maxStreamsPerAccount;
const others: SharedStreamSlots[] = [];
const slotHolders = statement(
  `select distinct pid from pg_locks where locktype = 'advisory' and pid <> pg_backend_pid()
      and database = (select oid from pg_database where datname = current_database())`,
);

function processSlots(): SharedStreamSlots {
  const slots = new SharedStreamSlots({ url: process.env.DATABASE_URL!, onLost: closeAllStreams });
  others.push(slots);
  return slots;
}

afterEach(async () => {
  closeAllStreams();
  setSharedStreamSlots(undefined);
  await Promise.all(others.splice(0).map((slots) => slots.stop()));
});

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'opened',
    (error: unknown) => (error instanceof AppError ? `${error.status} ${error.code}` : String(error)),
  );

describe('the stream cap across processes', () => {
  it("counts every process's streams: A opens only what B left of the cap, and more once B closes or dies", async () => {
    await openDatabase();
    const alice = await makeUser('streams');
    const bob = await makeUser('other');
    const a = processSlots();
    setSharedStreamSlots(a);
    const b = processSlots();

    const bStreams: (() => Promise<void>)[] = [];
    for (let i = 0; i < MAX - 5; i++) bStreams.push((await b.take(alice.id, MAX))!);
    for (let i = 0; i < 5; i++) await claimStreamSlot(alice.id, () => {});
    expect(openStreamCount(alice.id)).toBe(5);
    // The cap is reached over the two processes: A refuses although it has only 5 of its own.
    expect(await refusal(claimStreamSlot(alice.id, () => {}))).toBe('429 too_many_streams');
    // Another account is not affected.
    await claimStreamSlot(bob.id, () => {});

    // B closes one stream: A may open one, and no more.
    await bStreams.pop()!();
    await claimStreamSlot(alice.id, () => {});
    expect(await refusal(claimStreamSlot(alice.id, () => {}))).toBe('429 too_many_streams');

    // B ends (its connection goes, as when the process is killed): its slots are free.
    await b.stop();
    for (let i = 0; i < MAX - 6; i++) await claimStreamSlot(alice.id, () => {});
    expect(openStreamCount(alice.id)).toBe(MAX);
    expect(await refusal(claimStreamSlot(alice.id, () => {}))).toBe('429 too_many_streams');
  });

  it("A's slot connection lost: A's streams are closed (not left counted nowhere) and their slots are free", async () => {
    await openDatabase();
    const alice = await makeUser('lost');
    const a = processSlots();
    setSharedStreamSlots(a);
    const closed: number[] = [];
    for (let i = 0; i < 3; i++) await claimStreamSlot(alice.id, () => closed.push(i));
    const holders = await slotHolders.all<{ pid: number }>();
    expect(holders).toHaveLength(1);
    await statement('select pg_terminate_backend(?) as ok').get(holders[0]!.pid);
    await until(() => closed.length === 3, 5_000, "A's streams to be closed");
    expect(a.heldCount(alice.id)).toBe(0);

    const b = processSlots();
    for (let i = 0; i < MAX; i++) expect(await b.take(alice.id, MAX)).toBeTypeOf('function');
    expect(await b.take(alice.id, MAX)).toBeUndefined();
  });
});
