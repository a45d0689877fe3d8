import 'server-only';
import { LIMITS } from '@/lib/limits';

export class StepTimeoutError extends Error {
  constructor(label: string, ms: number) {
    super(`${label} took longer than ${ms} ms`);
    this.name = 'StepTimeoutError';
  }
}

/**
 * One team's worker: its steps run one at a time (the team's lock), each bounded by the advancement
 * timeout. Teams have separate workers, so a slow step in one team never delays another.
 */
export class TeamWorker {
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;

  constructor(
    readonly teamId: string,
    private readonly stepTimeoutMs: number = LIMITS.scheduler.stepTimeoutMs,
  ) {}

  /** Queue a step; resolves when it finished, failed or timed out (errors are logged, never thrown). */
  run(label: string, step: () => Promise<void> | void): Promise<void> {
    this.pending += 1;
    const next = this.tail.then(async () => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          Promise.resolve().then(step),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new StepTimeoutError(label, this.stepTimeoutMs)), this.stepTimeoutMs);
          }),
        ]);
      } catch (err) {
        console.error(`[scheduler] team ${this.teamId}: ${label} failed`, err);
      } finally {
        clearTimeout(timer);
        this.pending -= 1;
      }
    });
    this.tail = next;
    return next;
  }

  get idle(): boolean {
    return this.pending === 0;
  }

  /** Resolves when every queued step has finished. */
  drain(): Promise<void> {
    return this.tail;
  }
}
