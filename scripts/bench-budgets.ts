/**
 * Budgets benchmark (npm run bench:budgets): measures, never asserts. What the budget checks add to one scheduler
 * planning pass (server/scheduler/view.ts) and to one team read, on a temporary data directory:
 *   - BENCH_OWNERS owners (default 20) × 5 teams, each team with a queued request and a token budget, and
 *     BENCH_RUNS finished runs (default 100,000) spread over those teams and today's UTC day;
 *   - a planning pass's time with no budgets and no daily cap ÷ with every team budgeted ÷ with the daily cap too,
 *     with the usage sums memoized (the steady state), one team's and account's read afresh (after one run finished)
 *     and every sum read afresh (as if every team's run finished at once);
 *   - getTeam's time with its usage figures.
 * Run with `tsx --conditions=react-server` so 'server-only' resolves to its empty build.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-bench-'));
process.env.DATA_DIR = dataDir;
process.env.SCRYPT_LOG_N = '10';

const OWNERS = Number(process.env.BENCH_OWNERS ?? 20);
const RUNS = Number(process.env.BENCH_RUNS ?? 100_000);
const PASSES = 200;

async function main() {
  const { agentCreateSchema } = await import('@/lib/schemas/agent');
  const { createUser } = await import('@/server/auth/users');
  const { createAgent } = await import('@/server/agents/catalog');
  const { createTeam, getTeam } = await import('@/server/teams/teams');
  const { sendRequest } = await import('@/server/teams/requests');
  const { closeDb, writeTx } = await import('@/server/db');
  const { execute, statement } = await import('@/server/db/statement');
  const { sql } = await import('drizzle-orm');
  const { loadSchedulingView } = await import('@/server/scheduler/view');

  const owners: Array<{ id: string; teams: Array<{ id: string; conversationId: string }> }> = [];
  for (let o = 0; o < OWNERS; o++) {
    const user = await createUser({ email: `o${o}-${crypto.randomUUID().slice(0, 6)}@bench.test`, password: 'benchmark-password' });
    const agents = [];
    for (const n of ['Alpha', 'Beta']) agents.push(await createAgent(user.id, agentCreateSchema.parse({ name: `${n} ${o}` })));
    const teams = [];
    for (let i = 0; i < 5; i++) {
      const { team } = await createTeam(user.id, { requestId: `t${i}`, name: `Team ${i}`, goal: 'Benchmark', agentIds: agents.map((a) => a.id) });
      await sendRequest(user.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply queued', draftKey: 'q' });
      teams.push({ id: team.id, conversationId: team.members[1]!.conversationId! });
    }
    owners.push({ id: user.id, teams });
  }
  const teams = owners.flatMap((o) => o.teams.map((t) => ({ ...t, ownerId: o.id })));
  const insert = statement(
    `insert into runs (id, conversation_id, owner_id, idempotency_key, kind, status, model, input, input_tokens, output_tokens, team_id, created_at)
     values (?, ?, ?, ?, 'start', 'success', 'scripted', '{}', 10, 10, ?, ?)`,
  );
  const now = Date.now();
  await writeTx(async () => {
    for (let i = 0; i < RUNS; i++) {
      const t = teams[i % teams.length]!;
      const id = crypto.randomUUID();
      await insert.run(id, t.conversationId, t.ownerId, `bench:${id}`, t.id, new Date(now - (i % 3_600) * 1_000));
    }
  });

  const time = async (fn: () => Promise<unknown>, n: number) => {
    await fn(); // warm the statement caches
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await fn();
    return Number(process.hrtime.bigint() - start) / 1e6 / n;
  };
  const pass = (options: { cap: number }) => () => loadSchedulingView({ now, cap: options.cap });

  const { usageChanged } = await import('@/server/budgets/usage-cache');
  /** Every sum read afresh, as after each team's run finished: the cost of a pass right after a finish. */
  const cold = (cap: number) => () => {
    for (const t of teams) usageChanged({ teamId: t.id, ownerId: t.ownerId });
    return loadSchedulingView({ now, cap });
  };
  /** One team's and its account's sums read afresh, as after one run finished (the usual pass after a finish). */
  let turn = 0;
  const afterOne = (cap: number) => () => {
    const t = teams[turn++ % teams.length]!;
    usageChanged({ teamId: t.id, ownerId: t.ownerId });
    return loadSchedulingView({ now, cap });
  };
  const bare = await time(pass({ cap: 0 }), PASSES);
  await writeTx(() => execute(sql`update teams set token_budget = 1000000000`));
  const budgetedCold = await time(cold(0), 20);
  const budgeted = await time(pass({ cap: 0 }), PASSES);
  const cappedCold = await time(cold(1_000_000_000), 20);
  const cappedOne = await time(afterOne(1_000_000_000), PASSES);
  const capped = await time(pass({ cap: 1_000_000_000 }), PASSES);
  const read = await time(() => getTeam(owners[0]!.id, owners[0]!.teams[0]!.id), PASSES);

  const ms = (v: number) => `${v.toFixed(3)} ms`;
  const delta = (v: number) => `${v < 0 ? '−' : '+'}${ms(Math.abs(v))}`;
  console.log(`budgets: ${OWNERS} owners × 5 teams, each with a queued request; ${RUNS.toLocaleString('en-US')} finished runs`);
  console.log(`  planning pass, no budgets, no cap:            ${ms(bare)}`);
  console.log(`  … every team budgeted, sums memoized:         ${ms(budgeted)} (${delta(budgeted - bare)})`);
  console.log(`  … every team budgeted, every sum read afresh: ${ms(budgetedCold)}`);
  console.log(`  … budgets + daily cap, memoized:              ${ms(capped)} (${delta(capped - bare)})`);
  console.log(`  … budgets + daily cap, one run just finished: ${ms(cappedOne)}`);
  console.log(`  … budgets + daily cap, every sum afresh:      ${ms(cappedCold)}`);
  console.log(`  getTeam with usage (memoized):                ${ms(read)}`);
  await closeDb();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
