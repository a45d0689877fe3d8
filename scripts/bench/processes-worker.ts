/**
 * One app process of scripts/bench-processes.ts, without Next: what server/startup.ts does on Postgres — open the
 * database, register the team tools, join the cluster (push bridge, heartbeat, team leases, the run-takeover beat
 * hook) and start the scheduler — driven step by step over IPC (scripts/bench/processes-protocol.ts).
 *
 * BENCH_PROCESS_ID is the id the orchestrator registered for this process in app_processes before any worker
 * joined, so every worker's first beat counts all of them and claims only its share of the queued teams (a process
 * alone at its first beat would claim every team, and leases of busy teams are never handed over).
 */
import os from 'node:os';
import type { FromWorker, ToWorker } from './processes-protocol';

const processId = process.env.BENCH_PROCESS_ID ?? '';
if (!processId) throw new Error('BENCH_PROCESS_ID is not set: this worker is started by scripts/bench-processes.ts');

const MAX_ACTIVE = Number(process.env.BENCH_MAX_ACTIVE ?? 64);
const TICK_MS = Number(process.env.BENCH_TICK_MS ?? 500);

const send = (message: FromWorker) => process.send!(message);
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

async function main() {
  const { closeDb, openDatabase } = await import('@/server/db');
  const { env } = await import('@/server/env');
  const { registerTeamTools } = await import('@/server/teams/tools/register');
  const { joinSharedDatabase } = await import('@/server/shared-database');
  const { currentScheduler, startScheduler, stopScheduler } = await import('@/server/scheduler/runtime');
  const { teamJobs } = await import('@/server/teams/scheduler-jobs');
  const { delegationPort } = await import('@/server/agents/delegation/port');
  const { registerDelegation } = await import('@/server/agents/delegation/register');
  const { registerMcpTools } = await import('@/server/mcp/tool-group/register');
  const { suspendActiveRuns } = await import('@/server/agents/suspend');
  const { closeCheckpointer } = await import('@/server/agents/checkpointer');

  await openDatabase();
  registerTeamTools();
  registerDelegation();
  registerMcpTools();
  const url = env.databaseUrl!;
  let joined: Awaited<ReturnType<typeof joinSharedDatabase>>['joined'] | undefined;
  let cpuAtGo = 0;
  let slowestHookMs = 0;

  const join = async () => {
    // What server/startup.ts does on Postgres, with the id the orchestrator registered ahead.
    ({ joined } = await joinSharedDatabase({
      url,
      identity: { id: processId, pid: process.pid, host: os.hostname() },
      // Every worker is started and registered before go, and throughput is measured from go: nothing to settle.
      settleMs: 0,
      onFenced: (reason) => {
        console.error(`[bench worker ${processId.slice(0, 8)}] fenced: ${reason}`);
        process.exit(1);
      },
      afterTakeover: (_report, took) => {
        slowestHookMs = Math.max(slowestHookMs, took);
      },
    }));
    send({ type: 'joined', heldTeams: joined.cluster.heldTeams().length });
  };

  const go = () => {
    cpuAtGo = cpuMs();
    startScheduler(teamJobs, { cluster: joined!.cluster, maxActive: MAX_ACTIVE, tickMs: TICK_MS, delegations: delegationPort });
    send({ type: 'started' });
  };

  const stop = async () => {
    // The CPU of the measured run only: taken before the drain and the goodbyes.
    const used = cpuMs() - cpuAtGo;
    const runtime = currentScheduler()!;
    const { stats } = joined!.cluster;
    send({ type: 'report', cpuMs: used, admissions: runtime.stats.admissions, passes: runtime.stats.passes, claimed: stats.claimed, released: stats.released, lost: stats.lost, slowestHookMs });
    await stopScheduler();
    await suspendActiveRuns();
    await joined!.leave();
    closeCheckpointer();
    await closeDb();
    process.disconnect();
  };

  process.on('message', (message: ToWorker) => {
    const step = message.type === 'join' ? join() : message.type === 'go' ? Promise.resolve(go()) : stop();
    step.catch((error: unknown) => {
      console.error(`[bench worker ${processId.slice(0, 8)}] ${message.type} failed:`, error);
      process.exit(1);
    });
  });
  send({ type: 'loaded' });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
