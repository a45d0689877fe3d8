/**
 * Handover time per kill, from durable timestamps: from the SIGKILL to the first progress of a team the killed
 * process held that had unfinished work at the kill. When runs record the process that ran them (runs.process_id),
 * progress is a run of those teams finished by another process; otherwise a job completed or a run finished, and
 * only progress before the killed process was healthy again is known to be another process's.
 */
import type { JobRow, RunRow } from './facts';

export type Kill = {
  process: number;
  killedAt: number;
  /** When the killed process answered health again (null: it was not restarted). */
  healthyAt: number | null;
  /** The teams it held (its live leases just before the kill); null when unknown: every team counts. */
  teams: string[] | null;
  /** Its app_processes id, when the deployment records one. */
  processId: string | null;
};

/** byAnother: the progress is known to be another process's. */
export type Handover = { process: number; ms: number; byAnother: boolean };

export function handovers(kills: Kill[], jobs: JobRow[], runs: RunRow[]): Handover[] {
  const teamOfConversation = new Map(jobs.map((j) => [j.conversation_id, j.team_id]));
  const runProgress = runs
    .filter((r) => r.finished_at != null && teamOfConversation.has(r.conversation_id))
    .map((r) => ({ team: teamOfConversation.get(r.conversation_id)!, at: r.finished_at!, processId: r.process_id }));
  const jobProgress = jobs.filter((j) => j.completed_at != null).map((j) => ({ team: j.team_id, at: j.completed_at!, processId: undefined }));
  return kills.flatMap((kill) => {
    const attributed = kill.processId != null && runs.some((r) => r.process_id != null);
    const progress = attributed ? runProgress.filter((p) => p.processId != null && p.processId !== kill.processId) : [...jobProgress, ...runProgress];
    const held = kill.teams ? new Set(kill.teams) : null;
    const pending = new Set(jobs.filter((j) => (!held || held.has(j.team_id)) && j.created_at <= kill.killedAt && (j.completed_at == null || j.completed_at > kill.killedAt)).map((j) => j.team_id));
    const after = progress.filter((p) => pending.has(p.team) && p.at > kill.killedAt).map((p) => p.at);
    if (!after.length) return [];
    const first = Math.min(...after);
    return [{ process: kill.process, ms: first - kill.killedAt, byAnother: attributed || kill.healthyAt == null || first < kill.healthyAt }];
  });
}
