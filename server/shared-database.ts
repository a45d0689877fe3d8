import 'server-only';
import type { JoinedCluster } from '@/server/cluster/join';
import type { ProcessIdentity } from '@/server/cluster/identity';
import type { RecoveryReport } from '@/server/agents/recovery';

export type SharedDatabaseOptions = {
  url: string;
  /** This process can no longer prove it is alive (start-up: log and exit at once). */
  onFenced: (reason: string) => void;
  /** Another identity than the process's own (a benchmark registering its workers ahead). */
  identity?: ProcessIdentity;
  /** Told after each beat's takeover round, with how long it took (a benchmark's figures). */
  afterTakeover?: (report: RecoveryReport, ms: number) => void;
  /** How long a process just started settles before taking teams and runs over (ADR 044 §7; default 10 s, 0: at once). */
  settleMs?: number;
};

/**
 * Join the other app processes on a Postgres database (server/cluster; ADR 033 §4–6), wired to the rest of the
 * server: the push bridge relays team, conversation and live-output changes, run ends (into this process's run
 * events, marked remote; its budget cache forgets their owners' sums), cancels and wakes; a bridge that was away makes
 * every stream reconnect and re-read and forgets every budget sum; the stream cap counts every process's streams; each beat takes over the runs of stopped processes, adopts their finished parents
 * with open children and carries out cancels asked elsewhere. Resolves after the first beat and its takeover, with
 * what that takeover recovered. The composition root of several processes: start-up and bench:processes share it.
 */
export async function joinSharedDatabase(options: SharedDatabaseOptions): Promise<{ joined: JoinedCluster; recovered: RecoveryReport }> {
  const { joinCluster } = await import('@/server/cluster/join');
  const { PushBridge } = await import('@/server/push/pg-bridge');
  const { pushBus } = await import('@/server/push/bus');
  const { announceConversationChange, forgetConversationChanges } = await import('@/server/push/conversation-changes');
  const { closeAllStreams } = await import('@/server/push/streams');
  const { SharedStreamSlots, setSharedStreamSlots } = await import('@/server/push/shared-stream-slots');
  const { activeRuns, runEvents } = await import('@/server/agents/run-events');
  const { forgetAllUsage, usageChanged } = await import('@/server/budgets/usage-cache');
  const { adoptOrphanedParents, carryOutCancelRequests, stopHere, takeOverOrphanedRuns } = await import('@/server/agents/run-takeover');
  const { currentScheduler } = await import('@/server/scheduler/runtime');
  const { releaseDeadProcessItems } = await import('@/server/batches/recovery');
  const { rememberLiveOutput } = await import('@/server/push/live-output');
  // Live output relayed from other processes is kept for viewers who open a stream mid-run.
  rememberLiveOutput();
  const { url } = options;
  let firstTakeover: RecoveryReport | undefined;
  const joined = await joinCluster({
    url,
    identity: options.identity,
    onFenced: options.onFenced,
    settleMs: options.settleMs,
    bridge: (origin) =>
      new PushBridge({
        url,
        origin,
        bus: pushBus(),
        onConversation: announceConversationChange,
        // Notes sent while the bridge was away are gone: every stream reconnects and re-reads, and the budget and
        // daily-cap sums are read afresh (runs may have finished elsewhere meanwhile).
        onResync: () => {
          forgetAllUsage();
          forgetConversationChanges();
          closeAllStreams();
        },
        runs: runEvents(),
        onRunFinished: (event) => {
          // Its tokens now count toward its team's budget and its account's day here too.
          usageChanged({ teamId: event.teamId ?? null, ownerId: event.ownerId });
          runEvents().emit('run:finished', { ...event, status: event.status as never, remote: true });
        },
        onCancel: stopHere,
        onWake: () => currentScheduler()?.wake(),
      }),
    // Teams just claimed (a dead process's among them) get their steps planned now, not at the next scheduler tick.
    onClaimed: () => currentScheduler()?.wake(),
    // Every run executing here is registered (run-executor.ts launchRun), from before it is marked running.
    executesNoRun: () => activeRuns().size === 0,
    hooks: {
      'run takeover': async () => {
        const started = performance.now();
        const report = await takeOverOrphanedRuns();
        firstTakeover ??= report;
        await adoptOrphanedParents();
        // Batch items a stopped process admitted but never launched: queued again now, no attempt spent (ADR 059).
        if (await releaseDeadProcessItems()) currentScheduler()?.wake();
        await carryOutCancelRequests();
        options.afterTakeover?.(report, performance.now() - started);
      },
    },
  });
  // The per-account stream cap counts every process's streams (a slot is a session lock on a connection of its own).
  const slots = new SharedStreamSlots({ url, onLost: closeAllStreams });
  setSharedStreamSlots(slots);
  const leave = joined.leave;
  joined.leave = async () => {
    try {
      await leave();
    } finally {
      setSharedStreamSlots(undefined);
      await slots.stop();
    }
  };
  return { joined, recovered: firstTakeover ?? [] };
}
