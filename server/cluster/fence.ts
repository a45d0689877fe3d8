import 'server-only';
import { AsyncLocalStorage } from 'node:async_hooks';

/** The team lease a scheduler step runs under: its writes count only while (team, process, epoch) still holds. */
export type StepFence = { teamId: string; processId: string; epoch: number };

/** A step's write was refused: another process took the team over (its lease expired while the step ran). */
export class LeaseLostError extends Error {
  constructor(readonly fence: StepFence) {
    super(`Team ${fence.teamId}: this process no longer holds its lease (epoch ${fence.epoch}); the step writes nothing`);
    this.name = 'LeaseLostError';
  }
}

// On globalThis: a step started by one copy of the scheduler module writes through another copy of the team domain.
const g = globalThis as unknown as { __ensembleStepFence?: AsyncLocalStorage<StepFence> };
const storage = (g.__ensembleStepFence ??= new AsyncLocalStorage<StepFence>());

/** Run a team step under its lease (Postgres with several processes); everything it awaits sees the fence. */
export const runFenced = <T>(fence: StepFence, fn: () => T): T => storage.run(fence, fn);

/** The fence of the step this call chain belongs to, for the given team; undefined outside a fenced step. */
export function currentFence(teamId: string): StepFence | undefined {
  const fence = storage.getStore();
  return fence?.teamId === teamId ? fence : undefined;
}
