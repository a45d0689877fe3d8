import 'server-only';

/** What request handlers may ask of the running scheduler (absent until the runtime starts in this process). */
export type SchedulerHandle = { wake(): void; stopJob(jobId: string): void };

const g = globalThis as unknown as { __ensembleScheduler?: SchedulerHandle };

export const setSchedulerHandle = (handle: SchedulerHandle | undefined) => {
  g.__ensembleScheduler = handle;
};

/** There is new work: plan soon. */
export const wakeScheduler = () => g.__ensembleScheduler?.wake();

/** A running job was asked to cancel: stop its run. */
export const stopJobRun = (jobId: string) => g.__ensembleScheduler?.stopJob(jobId);
