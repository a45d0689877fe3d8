import 'server-only';
import { closeCheckpointer } from '@/server/agents/checkpointer';
import { describeEnvProblem } from '@/lib/env-setting';
import { sharedSecretProblem } from '@/server/auth/secret';
import { closeDb, databaseEngine, openDatabase } from '@/server/db';
import { dataDir } from '@/server/db/paths';
import { acquireServiceLock, releaseServiceLock, ServiceLockError } from '@/server/db/service-lock';
import { env, environmentProblems } from '@/server/env';
import { onShutdown, runShutdownHooks } from '@/server/lifecycle';

const g = globalThis as unknown as { __ensembleStarted?: boolean };

const EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
type Signal = keyof typeof EXIT_CODES;
type SignalListener = (signal: Signal) => void;

/**
 * Process start-up for `next start` and `next dev`, called once from instrumentation.ts (Node.js runtime only):
 * refuse invalid settings (server/env.ts), take the data directory's service lock (a second server refuses to start), open the database (which applies
 * pending migrations), reconcile runs left unfinished by a previous process, start the team scheduler (which
 * reconciles unfinished jobs) — all before anyone opens a page — and shut down gracefully on SIGTERM/SIGINT.
 */
export async function startServerProcess(): Promise<void> {
  if (g.__ensembleStarted) return;
  g.__ensembleStarted = true;
  const startedAt = performance.now();
  // Settings first: a value the app would misread (TRUST_PROXY=true, AGENT_LIMIT_PER_ACCOUNT=-3) stops the start,
  // naming each variable and what it allows, before anything is opened. Exit here, as for the service lock below.
  const problems = environmentProblems();
  if (problems.length > 0) {
    for (const problem of problems) console.error(`[ensemble] ${describeEnvProblem(problem)}`);
    console.error('[ensemble] not started: fix or unset the variables above (README.md "Configuration" lists them).');
    process.exit(1);
  }
  // Several processes on one database must share the session secret: refuse rather than let each generate its own.
  const secretProblem = sharedSecretProblem();
  if (secretProblem) {
    console.error(`[ensemble] not started: ${secretProblem.message}`);
    process.exit(1);
  }
  // Before any request is served: stamps each request with its socket address (sign-in rate limiting).
  (await import('@/server/auth/client-address')).installPeerAddressHeader();
  // …and refuses a burst of concurrent sign-ins from one address before Next routes them.
  (await import('@/server/auth/sign-in-burst-guard')).installSignInBurstGuard();
  // …and answers a page path's oversized or unsized body 413/411 before Next reads any of it (it would read it all).
  (await import('@/server/http/page-body-guard')).installPageBodyGuard();
  // The account pages (Pages Router, no JavaScript: ADR 062) ask the server through a registry they can import.
  (await import('@/server/auth/public-page-services')).installPublicPageServices();

  // SQLite: one process per data directory (its service lock). Postgres: several processes may share the database
  // (ADR 033 §5), whatever their data directories; they coordinate through it instead.
  const shared = databaseEngine() === 'postgres';
  let holding = 'the database with the other app processes';
  // The data directory is made owner-only at start on either engine.
  if (shared) dataDir();
  if (!shared) {
    try {
      holding = acquireServiceLock();
    } catch (err) {
      if (!(err instanceof ServiceLockError)) throw err;
      console.error(`[ensemble] ${err.message}`);
      // Exit here: an error thrown from instrumentation would leave Next serving without its runtime.
      process.exit(1);
    }
  }

  // Fails loudly (and stops the server) when the data directory, the database server or a migration is broken.
  await openDatabase();

  // Tool groups first: a run recovered below may call a team tool before the scheduler would register them.
  const { registerTeamTools } = await import('@/server/teams/tools/register');
  registerTeamTools();
  // Delegation plugs into the run core the same way (its tool group, guard, shared budget and child-run hook), before
  // a recovered run needs any of them: the core never imports it (docs/decisions/049-run-core-seams.md).
  const { registerDelegation } = await import('@/server/agents/delegation/register');
  registerDelegation();
  // An agent's MCP tools (server/mcp/tool-group), before a recovered run builds its tools.
  const { registerMcpTools } = await import('@/server/mcp/tool-group/register');
  registerMcpTools();
  // The `web` tool group (web_fetch, web_search: server/web, ADR 060).
  const { registerWebTools } = await import('@/server/web/register');
  registerWebTools();
  // The `files` tool group (server/files, ADR 058), before a recovered run builds its tools.
  const { registerFileTools } = await import('@/server/files/tool-group/register');
  registerFileTools();
  // The `skills` tool group (read_skill, ADR 061), selected by an agent's own skills.
  const { registerSkillTools } = await import('@/server/skills/tool-group');
  registerSkillTools();
  // The `batch` tool group (batch_task, ADR 059), before any run is recovered.
  const { registerBatches, batchPort } = await import('@/server/batches/port');
  registerBatches();
  let notes: unknown[] = [];
  let recovered: unknown[] = [];
  if (shared) {
    // The first beat takes over the runs (and notes) of processes that stopped; later beats keep doing so.
    recovered = await joinSharedDatabase();
  } else {
    // Notes first: a recorded @mention holds its conversation's lock until its message is in the thread.
    const { recoverNotes } = await import('@/server/agents/thread-notes');
    notes = await recoverNotes();
    const { recoverRuns } = await import('@/server/agents/recovery');
    recovered = await recoverRuns();
    // Batch items the previous process admitted but never launched: queued again now, no attempt spent (ADR 059).
    const { releaseDeadProcessItems } = await import('@/server/batches/recovery');
    await releaseDeadProcessItems();
  }
  // Teams a crash left half-created get their member conversations before the scheduler looks at them.
  const { finishTeamCreations } = await import('@/server/teams/lifecycle');
  const teams = await finishTeamCreations();

  const { startScheduler, stopScheduler } = await import('@/server/scheduler/runtime');
  // The scheduler owns its port and never imports the team domain: the team domain's implementation is wired in here.
  const { teamJobs } = await import('@/server/teams/scheduler-jobs');
  // Delegated children (the `task` tool) are admitted through the same slots, by the same rule.
  const { delegationPort } = await import('@/server/agents/delegation/port');
  const { suspendActiveRuns } = await import('@/server/agents/suspend');
  // Hooks run newest first: stop admitting and drain the team workers, then suspend the runs still executing
  // (left unfinished, so the next start continues them instead of recording them as cancelled).
  onShutdown('runs', async () => {
    await suspendActiveRuns();
  });
  onShutdown('scheduler', stopScheduler);
  startScheduler(teamJobs, { delegations: delegationPort, batches: batchPort });
  // Threads a crash left behind a conversation delete (ADR 050): housekeeping beside live work, so not awaited.
  const { sweepOrphanThreads } = await import('@/server/agents/orphan-thread-sweep');
  void sweepOrphanThreads().catch((err) => console.error('[conversations] could not sweep the threads of deleted conversations', err));
  // Uploads a crash cut off, and file content nothing names any more (ADR 058): housekeeping too, not awaited.
  const { sweepFiles } = await import('@/server/files/sweep');
  void sweepFiles().catch((err) => console.error('[files] could not sweep left-over file content', err));

  installSignalHandlers();
  console.log(
    `[ensemble] started in ${Math.round(performance.now() - startedAt)} ms: holding ${holding}; ${recovered.length} unfinished run(s), ${notes.length} note(s) and ${teams.length} team creation(s) recovered`,
  );
  // Whatever ends the process, leave the databases closed; the OS drops the service lock with the process.
  // 'exit' listeners can't await: closing SQLite (both app connections, checkpoints.db) is synchronous and happens
  // here; a Postgres pool's close can only be started — the OS drops its sockets with the process, and the server
  // ends those sessions (an open transaction rolls back).
  process.once('exit', () => {
    void closeDatabases();
    releaseServiceLock();
  });
}

/**
 * Join the other app processes on the Postgres database (server/cluster; ADR 033 §4–6): heartbeat, team leases, the
 * push bridge, and the beat's hooks that take over a stopped process's runs and carry out cancels asked elsewhere.
 * A process that can no longer prove it is alive stops at once — exit, not a graceful drain (a drain writes) — since
 * the others are about to take its teams and runs over. Returns the runs taken over at the first beat.
 */
async function joinSharedDatabase(): Promise<unknown[]> {
  const { joinSharedDatabase: join } = await import('@/server/shared-database');
  const { joined, recovered } = await join({
    url: env.databaseUrl!,
    onFenced: (reason) => {
      console.error(`[ensemble] stopping now: ${reason}; the other processes take over this one's teams and runs.`);
      process.exit(1);
    },
  });
  // Hooks run newest first: registered before the scheduler's and the runs', this runs after both have stopped.
  onShutdown('cluster', joined.leave);
  return recovered;
}

/**
 * Next's own SIGTERM/SIGINT handler closes the HTTP server and exits at once, which would cut our drain short.
 * Take its listeners over and call them after our hooks: scheduler drained, runs suspended, databases closed,
 * then Next closes HTTP and exits. The service lock stays held until the process exits.
 */
function installSignalHandlers(): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const previous = process.listeners(signal) as SignalListener[];
    for (const listener of previous) process.removeListener(signal, listener);
    process.on(signal, () => void stop(signal, previous));
  }
}

let stopping = false;

async function stop(signal: Signal, previous: SignalListener[]): Promise<void> {
  // Duplicate signals (Ctrl+C in a shell sends two) stop once.
  if (stopping) return;
  stopping = true;
  const startedAt = performance.now();
  await runShutdownHooks();
  await closeDatabases();
  console.log(`[ensemble] ${signal}: scheduler drained and runs suspended in ${Math.round(performance.now() - startedAt)} ms; closing HTTP`);
  if (previous.length === 0) process.exit(EXIT_CODES[signal]);
  for (const listener of previous) listener(signal);
  // Next exits once its HTTP server has closed; don't let a slow client keep the process alive forever.
  setTimeout(() => process.exit(EXIT_CODES[signal]), 5_000).unref();
}

/**
 * Close checkpoints.db, then the app database. On SQLite everything here closes synchronously, before the returned
 * promise settles (closeDb's work runs before its first await), which the 'exit' listener relies on.
 */
async function closeDatabases(): Promise<void> {
  try {
    closeCheckpointer();
  } finally {
    await closeDb();
  }
}
