/**
 * Owner fairness, checked from durable data only (ADR 004; the round state and presence memory are in memory and
 * die with a process, so nothing here relies on them):
 *
 * - Slots held. A job holds a slot from its admission until it is finalized, which follows its run's end; its run
 *   is created after the admission committed. So every job run's interval [runs.created_at, runs.finished_at) lies
 *   inside a slot the job held: counting runs in flight gives a lower bound of the slots held at any instant,
 *   whichever process admitted, ran or recovered them (a dead process's jobs keep their slots in the database).
 *   (Delegation lends slots; this workload delegates nothing.)
 * - The cap (maxActiveJobs). More job runs in flight at one instant than the cap means more slots held than the
 *   cap: the last of them to be admitted was admitted while the others already held theirs.
 * - The shared cap (rule 9). At each admission whose time is durable (jobs.admitted_at: the job's last admission,
 *   so the start of a job that later asked a question is skipped), if the owner already had `perOwnerWhenShared`
 *   other runs in flight and another owner had a run in flight, the admission broke the rule: both runs were created
 *   before it, so both jobs were admitted before it; planning passes do not overlap and a pass writes its admissions
 *   before the next one reads, so those jobs held slots when the pass read its view (or were admitted by the same
 *   pass: the other owner had admissible work, and the planner counts its own admissions). Holding a slot makes an
 *   owner present regardless of the grace memory a restart loses.
 *
 * Both checks can miss a violation (run intervals are shorter than slots held) but never report one that did not
 * happen.
 */
import type { JobRow, RunRow } from './facts';

export type FairnessLimits = { maxActive: number; perOwnerWhenShared: number };

export type Fairness = {
  violations: string[];
  /** The most job runs in flight at one instant. */
  maxInFlight: number;
  /** The most runs one owner had in flight right after an admission, while another owner had one (0: never shared). */
  maxOwnerWhileShared: number;
  /** Admissions with a durable time, each checked against the shared cap. */
  admissionsChecked: number;
  /** Job runs per owner. */
  runsPerOwner: Record<string, number>;
};

type Interval = { runId: string; owner: string; from: number; to: number };

const jobRuns = (runs: RunRow[]): Interval[] =>
  runs
    .filter((r) => r.idempotency_key.startsWith('job:') && r.kind !== 'note')
    .map((r) => ({ runId: r.id, owner: r.owner_id, from: r.created_at, to: r.finished_at ?? Infinity }));

/** The most intervals covering one instant, and the first instant it happened (half-open: an end frees at once). */
function maxOverlap(intervals: Interval[]): { count: number; at: number } {
  const edges = intervals.flatMap((i) => [
    { t: i.from, d: 1 },
    { t: i.to, d: -1 },
  ]);
  edges.sort((a, b) => a.t - b.t || a.d - b.d);
  let now = 0;
  let best = { count: 0, at: NaN };
  for (const e of edges) {
    now += e.d;
    if (now > best.count) best = { count: now, at: e.t };
  }
  return best;
}

export function checkFairness(jobs: JobRow[], runs: RunRow[], limits: FairnessLimits): Fairness {
  const intervals = jobRuns(runs);
  const violations: string[] = [];
  const runsPerOwner: Record<string, number> = {};
  for (const i of intervals) runsPerOwner[i.owner] = (runsPerOwner[i.owner] ?? 0) + 1;

  const peak = maxOverlap(intervals);
  if (peak.count > limits.maxActive) {
    violations.push(`${peak.count} job runs in flight at ${new Date(peak.at).toISOString()}, above the cap of ${limits.maxActive} slots`);
  }

  const runByKey = new Map(runs.map((r) => [`${r.conversation_id}\u0000${r.idempotency_key}`, r.id]));
  let maxOwnerWhileShared = 0;
  let admissionsChecked = 0;
  for (const job of jobs) {
    if (job.admitted_at == null || !job.run_key) continue;
    const at = job.admitted_at;
    const own = runByKey.get(`${job.conversation_id}\u0000${job.run_key}`);
    const inFlight = intervals.filter((i) => i.runId !== own && i.from <= at && at < i.to);
    const mine = inFlight.filter((i) => i.owner === job.owner_id).length;
    const others = inFlight.length - mine;
    admissionsChecked += 1;
    if (others === 0) continue;
    maxOwnerWhileShared = Math.max(maxOwnerWhileShared, mine + 1);
    if (mine >= limits.perOwnerWhenShared) {
      violations.push(
        `job ${job.id} of owner ${job.owner_id} was admitted at ${new Date(at).toISOString()} while that owner had ${mine} runs in flight ` +
          `(shared cap ${limits.perOwnerWhenShared}) and other owners had ${others}`,
      );
    }
  }
  return { violations, maxInFlight: peak.count, maxOwnerWhileShared, admissionsChecked, runsPerOwner };
}
