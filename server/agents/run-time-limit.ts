import 'server-only';
import { LIMITS } from '@/lib/limits';

const TIME_CAPPED = 'RunTimeCapped';

/** runs.stop_reason of a run its wall-clock limit stopped. */
export const TIME_CAPPED_REASON = 'time_capped';

/** The abort reason of a run that reached its wall-clock limit: it ends as an error with stopReason time_capped. */
export class RunTimeCappedError extends Error {
  constructor(readonly minutes: number) {
    super(`Stopped after ${minutes} ${minutes === 1 ? 'minute' : 'minutes'} (the run's time limit)`);
    this.name = TIME_CAPPED;
  }
}

// Checked by name, not instanceof: route bundles and instrumentation may each load their own copy of this module.
export const isTimeCap = (reason: unknown): reason is RunTimeCappedError => (reason as { name?: unknown } | null)?.name === TIME_CAPPED;

// Tests shrink the minute so a time limit can be reached without waiting minutes; kept on globalThis so every
// copy of this module sees the same clock.
const g = globalThis as unknown as { __ensembleRunMinuteMs?: number };

/** Length of one "minute" of run time limits, in ms (60,000 outside tests). */
export const runMinuteMs = (): number => g.__ensembleRunMinuteMs ?? 60_000;

/** Tests only: make one minute of run time limit last `ms` milliseconds (undefined restores real minutes). */
export function setRunMinuteMsForTests(ms: number | undefined): void {
  g.__ensembleRunMinuteMs = ms;
}

/** The run's limit in minutes: the agent's own, else the instance default (LIMITS.run). */
export function runTimeLimitMinutes(agent: { timeLimitMinutes: number | null }): number {
  const own = agent.timeLimitMinutes;
  const { min, max } = LIMITS.run.timeLimitMinutes;
  return own != null && Number.isInteger(own) && own >= min && own <= max ? own : LIMITS.run.defaultTimeLimitMinutes;
}

/**
 * Abort the run's controller when its wall-clock limit passes, counted from when this process started executing it
 * (a run continued after a restart gets its limit again rather than being failed for the time the server was down).
 * Returns a function that clears the timer.
 */
export function armTimeLimit(controller: AbortController, minutes: number): () => void {
  const timer = setTimeout(() => controller.abort(new RunTimeCappedError(minutes)), minutes * runMinuteMs());
  timer.unref?.();
  return () => clearTimeout(timer);
}
