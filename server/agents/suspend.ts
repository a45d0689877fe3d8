import 'server-only';
import { activeRuns, setRunsSuspended } from './run-events';

const SUSPENDED = 'RunSuspended';

/**
 * The abort reason of a run stopped by a shutdown. Unlike a cancellation it records nothing: the run row stays
 * pending/running, so the next start's recoverRuns() continues it from its last checkpoint.
 */
export class RunSuspendedError extends Error {
  constructor() {
    super('The server is shutting down; the run continues on the next start');
    this.name = SUSPENDED;
  }
}

// Checked by name, not instanceof: route bundles and instrumentation may each load their own copy of this module.
export const isSuspension = (reason: unknown): boolean => (reason as { name?: unknown } | null)?.name === SUSPENDED;

export type SuspendReport = { suspended: string[]; settled: boolean };

/**
 * Shutdown: stop launching runs in this process and abort the executing ones without recording an outcome.
 * Each step's checkpoint is written before the next begins, so at most the step in flight is redone later.
 * Resolves when every aborted execution has settled, or after timeoutMs (the rows are safe either way).
 */
export async function suspendActiveRuns(timeoutMs = 4_000): Promise<SuspendReport> {
  setRunsSuspended(true);
  const active = [...activeRuns()];
  for (const [, run] of active) run.controller.abort(new RunSuspendedError());
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    Promise.allSettled(active.map(([, run]) => run.promise)).then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  return { suspended: active.map(([id]) => id), settled };
}

/** Allow launches again (tests that simulate a restart within one process). */
export const resumeRunLaunches = (): void => setRunsSuspended(false);
