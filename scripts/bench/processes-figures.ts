/** The figures of one run of scripts/bench-processes.ts, computed from the jobs' own times (pure: no I/O). */

export type JobTimes = { status: string; createdAt: Date; admittedAt: Date | null; completedAt: Date | null };

export type RunFigures = {
  jobs: number;
  failed: number;
  /** Neither completed nor failed nor cancelled when the run ended (a stall: see bench-processes.ts). */
  unfinished: number;
  wallMs: number;
  jobsPerSecond: number;
  /** Completion − max(creation, go): every job was queued before go, so this is the time the run took to reach it. */
  latency: { p50: number; p99: number };
  /** Admission → completion: how long a job held its slot. */
  service: { p50: number; p99: number };
  /** Σ slot-holding time ÷ wall: the slots that were in use, on average. */
  meanSlotsInUse: number;
  /** Model time (jobs × sleep) ÷ Σ slot-holding time = model time ÷ (wall × mean slots in use). */
  effectiveUtilization: number;
};

/** The value at rank ⌊n·p⌋ of an ascending list (the nearest-rank style bench-scheduler uses). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

export function runFigures(rows: readonly JobTimes[], goAt: number, sleepMs: number): RunFigures {
  const done = rows.filter((r) => r.completedAt !== null && r.status !== 'running' && r.status !== 'queued');
  const settled = (status: string) => ['completed', 'failed', 'cancelled'].includes(status);
  const failed = rows.filter((r) => settled(r.status) && r.status !== 'completed').length;
  const unfinished = rows.filter((r) => !settled(r.status)).length;
  const end = Math.max(...done.map((r) => r.completedAt!.getTime()));
  const wallMs = end - goAt;
  const latencies = done.map((r) => r.completedAt!.getTime() - Math.max(r.createdAt.getTime(), goAt)).sort((a, b) => a - b);
  const held = done.filter((r) => r.admittedAt !== null).map((r) => r.completedAt!.getTime() - r.admittedAt!.getTime());
  const busyMs = held.reduce((sum, ms) => sum + ms, 0);
  held.sort((a, b) => a - b);
  const completed = rows.filter((r) => r.status === 'completed').length;
  return {
    jobs: rows.length,
    failed,
    unfinished,
    wallMs,
    jobsPerSecond: completed / (wallMs / 1000),
    latency: { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) },
    service: { p50: percentile(held, 0.5), p99: percentile(held, 0.99) },
    meanSlotsInUse: busyMs / wallMs,
    effectiveUtilization: (completed * sleepMs) / busyMs,
  };
}
