/**
 * Conversation-length benchmark (npm run bench:conversation): measures, never asserts. One conversation on the
 * real app path (runs service start + wait, the agent graph, the product checkpointer, the scripted model) grows
 * exchange by exchange; at 10, 100 and 1,000 exchanges it prints
 *   - checkpoint bytes: checkpoints.db + its WAL after a WAL checkpoint,
 *   - bytes ÷ message bytes: the thread's messages serialized once each (what the conversation holds),
 *   - CPU per run: process.cpuUsage() around start + wait, the mean of the last 5 runs at that length.
 * The same figures for the bare library saver (SqliteSaver from @langchain/langgraph-checkpoint-sqlite) come
 * beside them as the baseline, and for "library + prune" (the other direction the issue names: the library saver,
 * superseded checkpoints deleted when a run settles). The library variants grow quadratically, so they stop at
 * BENCH_LIBRARY_EXCHANGES (default 100); larger lengths are extrapolated and marked "≈ … (extrapolated)".
 *
 * Each variant runs in its own child process (fresh caches, fresh data directory).
 * Env: BENCH_EXCHANGES (default 1000), BENCH_LIBRARY_EXCHANGES (default 100), BENCH_VARIANTS (comma list),
 * BENCH_KEEP=1 keeps the data directories for inspection.
 * Run with `tsx --conditions=react-server` so 'server-only' resolves to its empty build.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { benchDataDir } from './bench/bench-data-dir';

type Variant = 'product' | 'library' | 'library+prune';
type Point = { exchanges: number; messages: number; messageBytes: number; checkpointBytes: number; cpuMsPerRun: number; wallMsPerRun: number };

const MARKS = [10, 100, 1000];
const CPU_WINDOW = 5;
const WARMUP_EXCHANGES = 20;
const ALL_VARIANTS: Variant[] = ['product', 'library', 'library+prune'];

// ~300 characters of ordinary prose per request.
const FILLER =
  'Please look over the quarterly notes from the planning meeting, compare them with last month’s figures, and tell me which items moved, which stalled, and what we should raise with the team on Thursday. Keep it short and concrete.';

function requestText(i: number): string {
  const head = `Request ${i}: ${FILLER}`.slice(0, 300);
  // Every third exchange calls a builtin tool first (AI tool call + tool result + final answer).
  if (i % 3 === 0) return `${head}\n/call calculator {"expression":"(${i} + 7) * 3"}`;
  return `${head}\n/reply Noted (${i}). ${FILLER.slice(0, 240)}`;
}

async function child(variant: Variant, maxExchanges: number): Promise<Point[]> {
  const dataDir = await benchDataDir('ensemble-bench-conv-');
  const { createUser } = await import('@/server/auth/users');
  const { closeDb, schema, writeTx } = await import('@/server/db');
  const { createConversation } = await import('@/server/agents/conversations');
  const { start, wait } = await import('@/server/agents/runs');
  const { readThread } = await import('@/server/agents/thread');
  const { getCheckpointer, closeCheckpointer, readCheckpointStore } = await import('@/server/agents/checkpointer');
  const { checkpointDbPath } = await import('@/server/db/paths');
  const { runEvents } = await import('@/server/agents/run-events');
  const Database = (await import('better-sqlite3')).default;
  const { SqliteSaver } = await import('@langchain/langgraph-checkpoint-sqlite');
  const { JsonPlusSerializer } = await import('@langchain/langgraph-checkpoint');

  let libraryDb: InstanceType<typeof Database> | undefined;
  // On Postgres (DATABASE_URL) the product's checkpoints live in the `langgraph` schema; the library variants are
  // the SQLite savers of before ADR 013, measured on checkpoints.db only.
  if (process.env.DATABASE_URL && variant !== 'product') throw new Error(`variant ${variant} measures checkpoints.db: run it without DATABASE_URL`);
  if (variant !== 'product') {
    // Install the bare library saver where getCheckpointer() keeps the process's saver (same file, same pragmas).
    libraryDb = new Database(checkpointDbPath());
    libraryDb.pragma('journal_mode = WAL');
    libraryDb.pragma('synchronous = NORMAL');
    if (variant === 'library+prune') libraryDb.pragma('auto_vacuum = INCREMENTAL');
    // The product's side tables (run events, compaction records) live in checkpoints.db too and runs write them
    // whatever the saver; created empty here, they add a few pages to the baseline's figures.
    const { CHECKPOINT_TABLES_SQL } = await import('@/server/agents/checkpoint/schema');
    libraryDb.exec(CHECKPOINT_TABLES_SQL);
    const saver = new SqliteSaver(libraryDb);
    // The journal's end-of-run flush commits through `fsync`; the baseline keeps its own synchronous=NORMAL.
    const db = libraryDb;
    const fsync = { unsynced: <T,>(fn: () => T): T => db.transaction(fn)(), durable: async () => {} };
    Object.assign(saver, { fsync });
    (globalThis as unknown as { __ensembleCheckpointer?: unknown }).__ensembleCheckpointer = { saver, path: checkpointDbPath(), db };
  }
  if (variant === 'library+prune') {
    // The "prune only" direction: when a run settles, keep only the thread's newest checkpoint (and its writes).
    runEvents().on('run:finished', ({ conversationId }) => {
      const db = libraryDb!;
      const latest = db.prepare(`select max(checkpoint_id) as id from checkpoints where thread_id = ? and checkpoint_ns = ''`).get(conversationId) as { id: string | null };
      if (!latest.id) return;
      db.transaction(() => {
        db.prepare(`delete from checkpoints where thread_id = ? and checkpoint_ns = '' and checkpoint_id < ?`).run(conversationId, latest.id);
        db.prepare(`delete from writes where thread_id = ? and checkpoint_ns = '' and checkpoint_id < ?`).run(conversationId, latest.id);
      })();
      db.pragma('incremental_vacuum(256)');
    });
  }

  const user = await createUser({ email: `bench-${crypto.randomUUID().slice(0, 8)}@bench.test`, password: 'benchmark-password' });
  const [agent] = await writeTx((tx) =>
    tx
      .insert(schema.agents)
      .values({ id: crypto.randomUUID(), ownerId: user.id, name: 'Bench', nameKey: 'bench', description: '', instructions: '', model: 'scripted', toolGroups: ['utility'], approvalTools: [], maxTurns: 25, updatedAt: new Date() })
      .returning(),
  );
  const size = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
  /** What the checkpoint store takes: checkpoints.db and its WAL, or the `langgraph` schema's tables with their indexes and TOAST. */
  const storeBytes = () =>
    readCheckpointStore(
      (db) => {
        db.pragma('wal_checkpoint(TRUNCATE)');
        const file = checkpointDbPath();
        return size(file) + size(`${file}-wal`);
      },
      async (saver) =>
        Number(
          (
            await saver.pool.query<{ n: string }>(
              `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = $1 AND c.relkind = 'r'`,
              [saver.schema],
            )
          ).rows[0]!.n,
        ),
    );
  const vacuum = () =>
    readCheckpointStore(
      (db) => void db.exec('VACUUM'),
      // VACUUM FULL: hand the warm-up's pages back, as SQLite's VACUUM does, so the first marks start from empty.
      async (saver) => {
        const { rows } = await saver.pool.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = $1`, [saver.schema]);
        await saver.pool.query(`VACUUM FULL ${rows.map((r) => `"${saver.schema}"."${r.name}"`).join(', ')}`);
      },
    );
  // Warm up (JIT, prepared statements, module loading) on a throwaway conversation, so the first marks are steady state.
  const warmup = await createConversation(user.id, agent!.id);
  for (let i = 1; i <= WARMUP_EXCHANGES; i++) {
    const { run } = await start(user.id, warmup.id, { text: requestText(i) }, { idempotencyKey: `warmup-${i}` });
    await wait(run.id, 120_000);
  }
  await new Promise((resolve) => setImmediate(resolve));
  await (libraryDb ? (globalThis as unknown as { __ensembleCheckpointer: { saver: InstanceType<typeof SqliteSaver> } }).__ensembleCheckpointer.saver : getCheckpointer()).deleteThread(warmup.id);
  await vacuum();
  const conversation = await createConversation(user.id, agent!.id);
  const serde = new JsonPlusSerializer();
  const cpu: number[] = [];
  const wall: number[] = [];
  const points: Point[] = [];

  for (let i = 1; i <= maxExchanges; i++) {
    const before = process.cpuUsage();
    const t0 = performance.now();
    const { run } = await start(user.id, conversation.id, { text: requestText(i) }, { idempotencyKey: `bench-${i}` });
    const done = await wait(run.id, 120_000);
    const used = process.cpuUsage(before);
    wall.push(performance.now() - t0);
    cpu.push((used.user + used.system) / 1000);
    if (done?.status !== 'success') throw new Error(`exchange ${i} ended ${done?.status}: ${done?.error ?? ''}`);
    if (!MARKS.includes(i) && i !== maxExchanges) continue;
    // Let settle-time maintenance (pruning, vacuum steps) finish before measuring the file.
    await new Promise((resolve) => setImmediate(resolve));
    const { messages } = await readThread(conversation.id);
    let messageBytes = 0;
    for (const m of messages) messageBytes += (await serde.dumpsTyped(m))[1].byteLength;
    const mean = (xs: number[]) => xs.slice(-CPU_WINDOW).reduce((a, b) => a + b, 0) / Math.min(CPU_WINDOW, xs.length);
    points.push({ exchanges: i, messages: messages.length, messageBytes, checkpointBytes: await storeBytes(), cpuMsPerRun: mean(cpu), wallMsPerRun: mean(wall) });
  }
  closeCheckpointer();
  if (libraryDb?.open) libraryDb.close();
  await closeDb();
  if (process.env.BENCH_KEEP) console.error(`[bench] ${variant} data directory kept: ${dataDir}`);
  else fs.rmSync(dataDir, { recursive: true, force: true });
  return points;
}

const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;

function row(label: string, p: Point | undefined, estimate?: { bytes: number; cpu: number; messageBytes: number }) {
  if (p) {
    return `${label.padEnd(15)} ${String(p.exchanges).padStart(6)} ${String(p.messages).padStart(6)} ${mb(p.messageBytes).padStart(10)} ${mb(p.checkpointBytes).padStart(12)} ${(p.checkpointBytes / p.messageBytes).toFixed(2).padStart(8)}× ${p.cpuMsPerRun.toFixed(1).padStart(9)} ms ${p.wallMsPerRun.toFixed(1).padStart(9)} ms`;
  }
  if (!estimate) return `${label.padEnd(15)} (not run)`;
  return `${label.padEnd(15)} ${'≈'.padStart(6)} ${''.padStart(6)} ${mb(estimate.messageBytes).padStart(10)} ${('≈' + mb(estimate.bytes)).padStart(12)} ${('≈' + (estimate.bytes / estimate.messageBytes).toFixed(1)).padStart(8)}× ${('≈' + estimate.cpu.toFixed(0)).padStart(9)} ms  (extrapolated)`;
}

async function main() {
  const childArg = process.argv.indexOf('--child');
  if (childArg >= 0) {
    const variant = process.argv[childArg + 1] as Variant;
    const max = Number(process.argv[childArg + 2]);
    const points = await child(variant, max);
    process.stdout.write(`\nBENCH_RESULT ${JSON.stringify(points)}\n`);
    return;
  }
  const maxExchanges = Number(process.env.BENCH_EXCHANGES ?? 1000);
  const libraryMax = Number(process.env.BENCH_LIBRARY_EXCHANGES ?? 100);
  const variants = (process.env.BENCH_VARIANTS?.split(',') as Variant[] | undefined) ?? ALL_VARIANTS;
  const results = new Map<Variant, Point[]>();
  for (const variant of variants) {
    const max = variant === 'product' ? maxExchanges : Math.min(libraryMax, maxExchanges);
    const started = Date.now();
    const out = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, '--child', variant, String(max)], {
      encoding: 'utf8',
      env: process.env,
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = out.stdout.split('\n').find((l) => l.startsWith('BENCH_RESULT '));
    if (!line) throw new Error(`variant ${variant} failed (exit ${out.status}):\n${out.stdout.slice(-4000)}`);
    results.set(variant, JSON.parse(line.slice('BENCH_RESULT '.length)) as Point[]);
    console.log(`[bench] ${variant}: ${max} exchanges in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }

  console.log('\nvariant         exchanges msgs  msg bytes   ckpt bytes   ratio     CPU/run      wall/run');
  for (const variant of variants) {
    const points = results.get(variant)!;
    for (const mark of MARKS.filter((m) => m <= maxExchanges)) {
      const p = points.find((x) => x.exchanges === mark);
      console.log(row(variant, p, p ? undefined : extrapolate(points, mark, variant === 'library')));
    }
  }
  const product = results.get('product');
  if (product) {
    const at = (n: number) => product.find((p) => p.exchanges === n);
    const first = at(10);
    const last = at(1000) ?? product.at(-1);
    if (first && last) {
      const worst = Math.max(...product.filter((p) => MARKS.includes(p.exchanges)).map((p) => p.checkpointBytes / p.messageBytes));
      console.log(`\nproduct: storage ≤ ${worst.toFixed(2)}× message bytes (target ≤ 3×); CPU per run at ${last.exchanges} exchanges (${last.messages} messages) ÷ at 10 = ${(last.cpuMsPerRun / first.cpuMsPerRun).toFixed(2)} (target ≤ 1.3)`);
    }
  }
}

/** Library figures beyond the measured range: storage a·n² (quadratic) or linear, CPU linear, message bytes linear. */
function extrapolate(points: Point[], n: number, quadratic: boolean): { bytes: number; cpu: number; messageBytes: number } | undefined {
  const measured = points.filter((p) => MARKS.includes(p.exchanges) || p === points.at(-1));
  const a = measured.at(-2);
  const b = measured.at(-1);
  if (!a || !b || a.exchanges === b.exchanges) return undefined;
  const perExchangeMsg = b.messageBytes / b.exchanges;
  const slope = (b.cpuMsPerRun - a.cpuMsPerRun) / (b.exchanges - a.exchanges);
  return { bytes: b.checkpointBytes * (n / b.exchanges) ** (quadratic ? 2 : 1), cpu: b.cpuMsPerRun + slope * (n - b.exchanges), messageBytes: perExchangeMsg * n };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
