import 'server-only';

/**
 * What the scheduler needs from the domain whose jobs it admits. The scheduler owns this interface and never
 * imports that domain: the team domain implements it (server/teams/scheduler-jobs.ts) and start-up hands the
 * implementation to startScheduler(). The domain signals back through ./signal.ts, which imports nothing of it.
 * Planning reads durable job state directly (./view.ts), so the port carries only the steps that change it.
 *
 * Every step takes the team worker's signal, which aborts when the step overruns its bound; an aborted step
 * writes nothing more and leaves the job where the next planning pass picks it up again.
 */
export interface JobPort {
  /** Called once when a runtime starts, before it launches anything (the team domain registers its tools). */
  prepare(): void;
  /** Take a slot for a queued job (or a pending answer), in one transaction; false when no longer admissible. */
  admit(jobId: string): Promise<boolean>;
  /** Start (or find, by its run key) the admitted job's run; safe to repeat after a crash or a timeout. */
  launch(jobId: string, signal: AbortSignal): Promise<void>;
  /** Record the outcome of the job's finished run. */
  finalize(jobId: string, signal: AbortSignal): Promise<void>;
  /** Carry out a cancel: stop the job's run (its finish event then finalizes the job). */
  stop(jobId: string, signal: AbortSignal): Promise<void>;
}
