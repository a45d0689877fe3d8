import 'server-only';
import { LIMITS } from '@/lib/limits';

export class StepTimeoutError extends Error {
  constructor(label: string, ms: number) {
    super(`${label} took longer than ${ms} ms`);
    this.name = 'StepTimeoutError';
  }
}

/**
 * A step gets a signal that aborts when it overruns the bound. It must stop at its next await and write nothing
 * afterwards; the job is then left in a state the next planning pass picks up again (see execution.ts).
 */
export type Step = (signal: AbortSignal) => Promise<void> | void;

/**
 * One team's worker: its steps run one at a time (the team's lock), each bounded by the advancement timeout.
 * The bound aborts the step; the worker still waits until the step has really settled before it starts the next
 * one, so two steps of one team never overlap, not even after a timeout. Teams have separate workers, so a slow
 * step in one team never delays another.
 */
export class TeamWorker {
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;

  constructor(
    readonly teamId: string,
    private readonly stepTimeoutMs: number = LIMITS.scheduler.stepTimeoutMs,
  ) {}

  /** Queue a step; resolves when it finished or failed, also after an abort (errors are logged, never thrown). */
  run(label: string, step: Step): Promise<void> {
    this.pending += 1;
    const next = this.tail.then(() => this.execute(label, step));
    this.tail = next;
    return next;
  }

  private async execute(label: string, step: Step): Promise<void> {
    const controller = new AbortController();
    const started = Date.now();
    const timer = setTimeout(() => controller.abort(new StepTimeoutError(label, this.stepTimeoutMs)), this.stepTimeoutMs);
    try {
      await step(controller.signal);
    } catch (err) {
      if (!controller.signal.aborted) console.error(`[scheduler] team ${this.teamId}: ${label} failed`, err);
    } finally {
      clearTimeout(timer);
      if (controller.signal.aborted) {
        console.warn(`[scheduler] team ${this.teamId}: ${label} overran ${this.stepTimeoutMs} ms and was aborted; settled after ${Date.now() - started} ms`);
      }
      this.pending -= 1;
    }
  }

  get idle(): boolean {
    return this.pending === 0;
  }

  /** Resolves when every queued step has settled. */
  drain(): Promise<void> {
    return this.tail;
  }
}
