/**
 * Handover time per kill, from durable timestamps: from the SIGKILL to the first progress of a team the killed
 * process held that had unfinished work at the kill. When runs record the process that ran them (runs.process_id),
 * progress is a run of those teams finished by another process; otherwise a job completed or a run finished, and
 * only progress before the killed process was healthy again is known to be another process's.
 *
 * phasesOf splits a handover into what it waited for: the killed process's last beat, its lease running out (last
 * beat + lease), the first of its runs and team leases taken by another process (the servers' `[handover]` log
 * lines, server/cluster/handover-log.ts), and how the first progress came about (its run's start, takeover, end).
 */
import { HANDOVER_LINE } from '@/server/cluster/handover-log';
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

/** byAnother: the progress is known to be another process's. runId: the run whose end was the progress (if one). */
export type Handover = { process: number; ms: number; byAnother: boolean; runId: string | null; kill: Kill };

export function handovers(kills: Kill[], jobs: JobRow[], runs: RunRow[]): Handover[] {
  const teamOfConversation = new Map(jobs.map((j) => [j.conversation_id, j.team_id]));
  const runProgress = runs
    .filter((r) => r.finished_at != null && teamOfConversation.has(r.conversation_id))
    .map((r) => ({ team: teamOfConversation.get(r.conversation_id)!, at: r.finished_at!, processId: r.process_id, runId: r.id as string | null }));
  const jobProgress = jobs.filter((j) => j.completed_at != null).map((j) => ({ team: j.team_id, at: j.completed_at!, processId: undefined, runId: null }));
  return kills.flatMap((kill) => {
    const attributed = kill.processId != null && runs.some((r) => r.process_id != null);
    const progress = attributed ? runProgress.filter((p) => p.processId != null && p.processId !== kill.processId) : [...jobProgress, ...runProgress];
    const held = kill.teams ? new Set(kill.teams) : null;
    const pending = new Set(jobs.filter((j) => (!held || held.has(j.team_id)) && j.created_at <= kill.killedAt && (j.completed_at == null || j.completed_at > kill.killedAt)).map((j) => j.team_id));
    const after = progress.filter((p) => pending.has(p.team) && p.at > kill.killedAt);
    if (!after.length) return [];
    const first = after.reduce((a, b) => (b.at < a.at ? b : a));
    return [{ process: kill.process, ms: first.at - kill.killedAt, byAnother: attributed || kill.healthyAt == null || first.at < kill.healthyAt, runId: first.runId, kill }];
  });
}

/** A `[handover]` line: a team lease or a run taken from process `from` by process `by` at `at` (epoch ms). */
export type Takeover = { what: 'team' | 'run'; id: string; from: string; by: string; at: number };

/** The takeovers the servers logged (every line of the given log texts that has the shape). */
export function parseTakeovers(logs: string[]): Takeover[] {
  const found: Takeover[] = [];
  for (const text of logs) {
    for (const line of text.split('\n')) {
      const m = HANDOVER_LINE.exec(line.trim());
      if (m) found.push({ what: m[1] as 'team' | 'run', id: m[2]!, from: m[3]!, by: m[4]!, at: Number(m[5]) });
    }
  }
  return found;
}

/** Milliseconds relative to the kill (negative: before it); null when not known. */
export type Phases = {
  /** The killed process's last recorded beat. */
  lastBeat: number | null;
  /** Its leases ran out: last beat + lease (the earliest a survivor may take anything over). */
  leaseOut: number | null;
  /** The first of its runs, and of its team leases, taken by another process. */
  firstRunTaken: number | null;
  firstTeamTaken: number | null;
  /** The run whose end was the first progress: created, taken over (null: not a takeover), finished. */
  progressRunCreated: number | null;
  progressRunTaken: number | null;
  /** How many times that run was taken over between the kill and its end (2+: its taker died too). */
  progressRunTakeovers: number;
  /**
   * A later kill, before the run finished, of a process executing that run (it was taken from that process after
   * that kill): the run was interrupted again and its end waited for that kill's handover as well (null: it was not).
   */
  interruptedAt: number | null;
  progress: number;
};

export function phasesOf(handover: Handover, runs: RunRow[], takeovers: Takeover[], lastBeats: Map<string, number>, leaseMs: number, kills: Kill[] = []): Phases {
  const { kill } = handover;
  const rel = (at: number | null | undefined) => (at == null ? null : at - kill.killedAt);
  const beat = kill.processId ? (lastBeats.get(kill.processId) ?? null) : null;
  const fromKilled = takeovers.filter((t) => t.from === kill.processId && t.at >= kill.killedAt);
  const first = (what: Takeover['what']) => {
    const times = fromKilled.filter((t) => t.what === what).map((t) => t.at);
    return times.length ? Math.min(...times) : null;
  };
  const run = handover.runId ? runs.find((r) => r.id === handover.runId) : undefined;
  const taken = handover.runId ? fromKilled.filter((t) => t.what === 'run' && t.id === handover.runId).map((t) => t.at) : [];
  const progressAt = kill.killedAt + handover.ms;
  // Every takeover of that run until it finished (from the killed process, then from whoever took it and died).
  const chain = handover.runId ? takeovers.filter((t) => t.what === 'run' && t.id === handover.runId && t.at >= kill.killedAt && t.at <= progressAt) : [];
  // A later kill, before the run's end, of a process the run was then taken from: it was executing the run (it had
  // taken it over, or started it after this kill) when it was killed.
  const interrupting = kills.filter(
    (k) => k !== kill && k.killedAt > kill.killedAt && k.killedAt < progressAt && chain.some((t) => t.from === k.processId && t.at >= k.killedAt),
  );
  return {
    lastBeat: rel(beat),
    leaseOut: beat == null ? null : rel(beat + leaseMs),
    firstRunTaken: rel(first('run')),
    firstTeamTaken: rel(first('team')),
    progressRunCreated: rel(run?.created_at),
    progressRunTaken: taken.length ? rel(Math.min(...taken)) : null,
    progressRunTakeovers: chain.length,
    interruptedAt: interrupting.length ? rel(Math.min(...interrupting.map((k) => k.killedAt))) : null,
    progress: handover.ms,
  };
}

const s = (ms: number | null) => (ms == null ? '—' : `${ms >= 0 ? '+' : ''}${(ms / 1000).toFixed(1)} s`);

/** One line per handover: where its time went. */
export function describePhases(p: Phases): string {
  const how =
    p.progressRunTaken != null
      ? `its run created ${s(p.progressRunCreated)}, taken over ${s(p.progressRunTaken)}, finished after ${((p.progress - p.progressRunTaken) / 1000).toFixed(1)} s` +
        (p.interruptedAt != null ? `; its executor was killed ${s(p.interruptedAt)} and the run taken over again (${p.progressRunTakeovers} takeovers)` : '')
      : p.progressRunCreated != null
        ? `a run created ${s(p.progressRunCreated)}, not taken from the killed process` +
          (p.interruptedAt != null ? `; its executor was killed ${s(p.interruptedAt)} and the run taken over (${p.progressRunTakeovers} takeovers)` : '')
        : 'not a run';
  return `last beat ${s(p.lastBeat)}, lease out ${s(p.leaseOut)}, first run taken ${s(p.firstRunTaken)}, first team taken ${s(p.firstTeamTaken)}; first progress ${s(p.progress)} (${how})`;
}
