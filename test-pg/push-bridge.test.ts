import { EventEmitter } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TeamChange } from '@/server/push/bus';
import { PushBridge } from '@/server/push/pg-bridge';
import { until } from '@/test/support/wait';
import { freshDatabase, type FreshDatabase } from './support/database';

// server/push/pg-bridge.ts (ADR 033 §6): a change announced on one process's bus reaches every other process's
// bus, in order, once, never echoed back; a lost LISTEN connection comes back and makes streams re-read.

let database: FreshDatabase;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await database.drop();
});

type Side = { bus: EventEmitter; bridge: PushBridge; teams: TeamChange[]; conversations: [string, string[]][]; resyncs: number };
const open: Side[] = [];

async function side(origin: string): Promise<Side> {
  const bus = new EventEmitter();
  const s: Side = { bus, bridge: undefined as unknown as PushBridge, teams: [], conversations: [], resyncs: 0 };
  bus.on('team', (change: TeamChange) => s.teams.push(change));
  s.bridge = new PushBridge({
    url: database.url,
    origin,
    bus: bus as never,
    onConversation: (conversationId, runIds) => s.conversations.push([conversationId, runIds]),
    onResync: () => (s.resyncs += 1),
    reconnectMs: { first: 20, max: 200 },
  });
  await s.bridge.start();
  open.push(s);
  return s;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.bridge.stop()));
});

const team = (revision: number, jobIds: string[] = [`job-${revision}`]): TeamChange => ({ teamId: 'team-1', revision, jobIds });

describe('push across processes', () => {
  it('a team change reaches the other process once, and is not echoed back to its own', async () => {
    const a = await side('A');
    const b = await side('B');
    a.bus.emit('team', team(7, ['j-研究', 'j-🚀']));
    await until(() => b.teams.length === 1, 3_000, 'the change on B');
    expect(b.teams).toEqual([team(7, ['j-研究', 'j-🚀'])]);
    // A's bus holds only what A emitted itself: nothing came back through Postgres.
    await until(() => a.bridge.stats.sent === 1 && b.bridge.stats.received === 1, 3_000, 'the counters');
    expect(a.teams).toEqual([team(7, ['j-研究', 'j-🚀'])]);
    expect(a.bridge.stats.received).toBe(0);
  });

  it('a revocation signal reaches the other process, so its streams of that account re-check at once (ADR 040)', async () => {
    // What must not happen: a token revoked through one process leaving its streams on another process live until
    // their next heartbeat.
    const a = await side('A');
    const b = await side('B');
    const heard: unknown[] = [];
    b.bus.on('credentials', (change: unknown) => heard.push(change));
    a.bus.emit('credentials', { accountId: 'acct-1' });
    await until(() => heard.length === 1, 3_000, 'the signal on B');
    expect(heard).toEqual([{ accountId: 'acct-1' }]);
  });

  it('keeps one process\'s changes in the order it announced them', async () => {
    const a = await side('A');
    const b = await side('B');
    for (let revision = 1; revision <= 200; revision++) a.bus.emit('team', team(revision));
    await until(() => b.teams.length === 200, 5_000, '200 changes on B');
    expect(b.teams.map((t) => t.revision)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  });

  it('stop sends what was already announced before closing: a shutdown\'s last changes are not dropped', async () => {
    const a = await side('A');
    const b = await side('B');
    for (let revision = 1; revision <= 50; revision++) a.bus.emit('team', team(revision));
    // Stopped at once, with most of the fifty still queued on its connection.
    await a.bridge.stop();
    expect(a.bridge.stats.dropped).toBe(0);
    await until(() => b.teams.length === 50, 3_000, 'all fifty on B');
    expect(b.teams.map((t) => t.revision)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    // What must not happen after stop: a later change still forwarded.
    a.bus.emit('team', team(51));
    expect(a.bridge.stats.sent).toBe(50);
  });

  it('a conversation change crosses without its per-process id (the receiver numbers it)', async () => {
    const a = await side('A');
    const b = await side('B');
    a.bus.emit('conversation', { conversationId: 'c-1', id: 123_456, runIds: ['r-1', 'r-2'] });
    await until(() => b.conversations.length === 1, 3_000, 'the conversation change on B');
    expect(b.conversations).toEqual([['c-1', ['r-1', 'r-2']]]);
  });

  it('a team change with more job ids than a notification holds arrives as "re-read" (jobIds null), at the limit it arrives whole', async () => {
    const a = await side('A');
    const b = await side('B');
    // The envelope around the ids is ~70 bytes; ids of 16 bytes + quotes and comma: 400 fit, 600 do not.
    const fits = Array.from({ length: 400 }, (_, i) => `job-${String(i).padStart(12, '0')}`);
    const tooMany = Array.from({ length: 600 }, (_, i) => `job-${String(i).padStart(12, '0')}`);
    a.bus.emit('team', team(1, fits));
    a.bus.emit('team', team(2, tooMany));
    await until(() => b.teams.length === 2, 3_000, 'both changes on B');
    expect(b.teams[0]).toEqual(team(1, fits));
    expect(b.teams[1]).toEqual({ teamId: 'team-1', revision: 2, jobIds: null });
  });

  it('a listener whose connection is cut reconnects, re-reads, and hears what follows', async () => {
    const a = await side('A');
    const b = await side('B');
    const pid = b.bridge.listenerPid!;
    await database.pool.query('select pg_terminate_backend($1)', [pid]);
    await until(() => b.bridge.stats.reconnects === 1, 5_000, 'B to reconnect');
    expect(b.resyncs).toBe(1);
    expect(b.bridge.listenerPid).not.toBe(pid);
    a.bus.emit('team', team(9));
    await until(() => b.teams.length === 1, 3_000, 'the change after the reconnect');
    expect(b.teams).toEqual([team(9)]);
  });

  it('a sender that was away tells the others to re-read once it is back (what it could not send is not silently lost)', async () => {
    const a = await side('A');
    const b = await side('B');
    await database.pool.query('select pg_terminate_backend($1)', [a.bridge.listenerPid!]);
    await until(() => a.bridge.listenerPid === undefined, 3_000, 'A to notice the loss');
    a.bus.emit('team', team(3));
    expect(a.bridge.stats.dropped).toBe(1);
    await until(() => a.bridge.stats.reconnects === 1, 5_000, 'A to reconnect');
    await until(() => b.resyncs === 1, 3_000, 'B to be told to re-read');
    expect(b.teams).toEqual([]);
  });
});
