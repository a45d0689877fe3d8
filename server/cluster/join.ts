import 'server-only';
import { SharedCluster } from './shared-cluster';
import { setCurrentCluster } from './cluster';
import { clusterSignals, setClusterSignals } from './signals';
import type { PushBridge } from '@/server/push/pg-bridge';
import type { ProcessIdentity } from './identity';

/**
 * A process just started takes no team and no run over while others are live until its beats have been on time for
 * this long, or at the latest this long after its start (ADR 044 §7): loading its code and serving its first requests on a
 * busy machine is when it is most likely to miss its lease, and holding nothing it then rejoins instead of stopping.
 */
const SETTLE_MS = 10_000;
const SETTLE_CAP_MS = 30_000;

export type JoinedCluster = { cluster: SharedCluster; bridge: PushBridge; leave: () => Promise<void> };

/**
 * Join the app processes of a Postgres database (start-up; ADR 033 §4–6): the push bridge first (so nothing announced
 * after it is missed, and run ends and cancels cross to the others), then the cluster's first beat, which registers
 * this process, claims its share of teams and — through the hooks given — takes over the runs of stopped processes.
 * `leave` (graceful shutdown, after the drain) gives the leases and the process row back, then closes the bridge.
 */
export async function joinCluster(options: {
  url: string;
  identity?: ProcessIdentity;
  onFenced: (reason: string) => void;
  bridge: (origin: string) => PushBridge;
  hooks: Record<string, () => Promise<unknown>>;
  /** A beat claimed teams: plan here now, rather than at the scheduler's next tick. */
  onClaimed?: () => void;
  /** No run executes here now: a late beat may then re-register instead of stopping (ADR 044 §7). */
  executesNoRun?: () => boolean;
  /** How long a process just started settles before it takes teams and runs over (default SETTLE_MS; 0: at once). */
  settleMs?: number;
}): Promise<JoinedCluster> {
  const cluster = new SharedCluster({
    url: options.url,
    identity: options.identity,
    onFenced: options.onFenced,
    wakeOthers: () => clusterSignals().wake(),
    onClaimed: options.onClaimed,
    executesNoRun: options.executesNoRun,
    ...(options.settleMs === undefined ? { settleMs: SETTLE_MS, settleCapMs: SETTLE_CAP_MS } : { settleMs: options.settleMs }),
  });
  const started = options.bridge(cluster.processId);
  await started.start();
  setClusterSignals({ wake: () => started.sendWake(), cancel: (runId) => started.sendCancel(runId) });
  setCurrentCluster(cluster);
  for (const [name, hook] of Object.entries(options.hooks)) cluster.onTick(name, async () => void (await hook()));
  await cluster.start();
  // The first takeover finishes before the scheduler starts (start-up reports what it recovered).
  await cluster.hooksSettled;
  return {
    cluster,
    bridge: started,
    leave: async () => {
      try {
        await cluster.stop();
      } finally {
        setClusterSignals(undefined);
        await started.stop();
      }
    },
  };
}
