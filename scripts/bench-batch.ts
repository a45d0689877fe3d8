/**
 * Durable batches benchmark (npm run bench:batch; ADR 059): measures, never asserts. Runs the real scheduler, the
 * batch port and the scripted model in this process on a temporary data directory (SQLite; DATABASE_URL: Postgres),
 * and prints for each scenario: item throughput, slot utilization (the items' slot time ÷ slots × wall time), the
 * model's time ÷ the slots' time (what the machinery costs around each model call), and item latency p50/p99, both
 * from the batch's start (queueing included) and from the item's admission (its time in a slot).
 *   1. one batch of BENCH_ITEMS (300) items at concurrency 8, one owner
 *   2. the same number of items as three owners' batches at once (owner-fair sharing of the slots)
 * Settings: BENCH_ITEMS (300), BENCH_SLEEP_MS (the model's time per item, 50), BENCH_KEEP (keep the data directory).
 * Run with `tsx --conditions=react-server` so 'server-only' resolves to its empty build.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-bench-batch-'));
process.env.DATA_DIR = dataDir;
process.env.SCRYPT_LOG_N = '10';

const ITEMS = Number(process.env.BENCH_ITEMS) || 300;
const SLEEP_MS = Number(process.env.BENCH_SLEEP_MS ?? 50);
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)]!;

async function main() {
  const { agentCreateSchema } = await import('@/lib/schemas/agent');
  const { LIMITS } = await import('@/lib/limits');
  const { createUser } = await import('@/server/auth/users');
  const { createAgent } = await import('@/server/agents/catalog');
  const { createBatch } = await import('@/server/batches/store');
  const { batchPort } = await import('@/server/batches/port');
  const { delegationPort } = await import('@/server/agents/delegation/port');
  (await import('@/server/agents/delegation/register')).registerDelegation();
  const { startScheduler, stopScheduler } = await import('@/server/scheduler/runtime');
  const { teamJobs } = await import('@/server/teams/scheduler-jobs');
  const { closeDb, getDb, schema } = await import('@/server/db');
  const { closeCheckpointer } = await import('@/server/agents/checkpointer');
  const { eq, inArray } = await import('drizzle-orm');

  const slots = LIMITS.scheduler.maxActiveJobs;
  startScheduler(teamJobs, { delegations: delegationPort, batches: batchPort });

  async function owner(label: string) {
    const user = await createUser({ email: `${label}-${crypto.randomUUID().slice(0, 6)}@bench.test`, password: 'benchmark-password' });
    const agent = await createAgent(user.id, agentCreateSchema.parse({ name: `Worker ${label}` }));
    return { user, agent };
  }

  /** Start the batches at once and wait (bounded) for them to end; then read their items' times. */
  async function scenario(label: string, parts: Array<{ ownerId: string; agentId: string; items: number }>) {
    const started = Date.now();
    const ids: string[] = [];
    for (const part of parts) {
      const items = Array.from({ length: part.items }, (_, i) => ({ v: String(i) }));
      const { batch } = await createBatch(part.ownerId, { target: { agentId: part.agentId }, template: `/sleep ${SLEEP_MS}\n/reply {{v}}`, columns: ['v'], items, concurrency: 8 }, { origin: 'person' });
      ids.push(batch.id);
    }
    const deadline = Date.now() + 20 * 60_000;
    for (;;) {
      const rows = await getDb().select({ status: schema.batches.status }).from(schema.batches).where(inArray(schema.batches.id, ids));
      if (rows.every((r) => r.status === 'completed')) break;
      if (Date.now() > deadline) throw new Error(`benchmark: ${label} did not end within 20 minutes`);
      await wait(20);
    }
    const items = (await Promise.all(ids.map((id) => getDb().select().from(schema.batchItems).where(eq(schema.batchItems.batchId, id))))).flat();
    const end = Math.max(...items.map((i) => i.finishedAt!.getTime()));
    const wall = end - started;
    const inSlot = items.map((i) => i.finishedAt!.getTime() - i.startedAt!.getTime()).sort((a, b) => a - b);
    const fromStart = items.map((i) => i.finishedAt!.getTime() - started).sort((a, b) => a - b);
    const slotTime = inSlot.reduce((a, b) => a + b, 0);
    const done = items.filter((i) => i.status === 'done').length;
    console.log(`${label}: ${items.length} items (${done} done) in ${(wall / 1000).toFixed(1)} s`);
    console.log(`  throughput:        ${(items.length / (wall / 1000)).toFixed(1)} items/s (the model alone on ${slots} slots: ${((slots * 1000) / SLEEP_MS).toFixed(0)} items/s)`);
    console.log(`  slot utilization:  ${((100 * slotTime) / (slots * wall)).toFixed(0)} % (items' slot time ÷ ${slots} slots × wall time)`);
    console.log(`  model ÷ slot time: ${((100 * items.length * SLEEP_MS) / slotTime).toFixed(0)} % (${SLEEP_MS} ms of model per item)`);
    console.log(`  latency in a slot: p50 ${pct(inSlot, 0.5)} ms, p99 ${pct(inSlot, 0.99)} ms (admission → recorded end)`);
    console.log(`  latency from start: p50 ${(pct(fromStart, 0.5) / 1000).toFixed(1)} s, p99 ${(pct(fromStart, 0.99) / 1000).toFixed(1)} s (the batch's start → the item's recorded end)`);
    if (parts.length > 1) {
      const byOwner = parts.map((p, k) => items.filter((i) => i.batchId === ids[k]).map((i) => i.finishedAt!.getTime()));
      console.log(`  per owner, last item at: ${byOwner.map((t) => `${((Math.max(...t) - started) / 1000).toFixed(1)} s`).join(', ')}`);
    }
  }

  const solo = await owner('solo');
  await scenario(`1. one batch of ${ITEMS} items, concurrency 8`, [{ ownerId: solo.user.id, agentId: solo.agent.id, items: ITEMS }]);
  const three = await Promise.all(['a', 'b', 'c'].map(owner));
  const share = Math.floor(ITEMS / 3);
  await scenario(
    `2. three owners' batches of ${share} items at once`,
    three.map((o) => ({ ownerId: o.user.id, agentId: o.agent.id, items: share })),
  );

  await stopScheduler();
  closeCheckpointer();
  await closeDb();
  if (process.env.BENCH_KEEP) console.log(`kept ${dataDir}`);
  else fs.rmSync(dataDir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
