// A tiny in-memory job store that plays the runtime's part around the planner: it applies the
// conversation-head rule the way the real caller does and counts slots from job state.
import type { Candidate, OwnerQueue } from '@/server/scheduler/types';

export type JobState = 'queued' | 'running' | 'done';

export interface SimJob extends Candidate {
  readonly ownerId: string;
  readonly seq: number;
  state: JobState;
  /** Order of admission, so "the oldest running job" is the one admitted first. */
  admittedSeq?: number;
}

export class World {
  readonly jobs: SimJob[] = [];
  private seq = 0;
  private admissions = 0;

  add(ownerId: string, conversationId: string): SimJob {
    const job: SimJob = { jobId: `j${this.seq}`, conversationId, ownerId, seq: this.seq, state: 'queued' };
    this.seq += 1;
    this.jobs.push(job);
    return job;
  }

  get activeCount(): number {
    return this.jobs.filter((job) => job.state === 'running').length;
  }

  /** Running jobs, earliest admitted first. */
  running(): SimJob[] {
    return this.jobs
      .filter((job) => job.state === 'running')
      .sort((a, b) => (a.admittedSeq ?? 0) - (b.admittedSeq ?? 0));
  }

  /** Head rule: only the first unfinished job of each conversation; a running head contributes nothing.
   * Owners are listed by their oldest admissible job (what the runtime is asked to do). */
  queues(): OwnerQueue<SimJob>[] {
    const heads = new Map<string, SimJob>();
    for (const job of this.jobs) {
      if (job.state !== 'done' && !heads.has(job.conversationId)) heads.set(job.conversationId, job);
    }
    const byOwner = new Map<string, SimJob[]>();
    const admissible = [...heads.values()].filter((job) => job.state === 'queued').sort((a, b) => a.seq - b.seq);
    for (const job of admissible) {
      const list = byOwner.get(job.ownerId) ?? [];
      list.push(job);
      byOwner.set(job.ownerId, list);
    }
    return [...byOwner].map(([ownerId, candidates]) => ({ ownerId, candidates }));
  }

  ownersWithWork(): Set<string> {
    return new Set(this.queues().map((queue) => queue.ownerId));
  }

  admit(jobId: string): void {
    const job = this.find(jobId);
    if (job.state !== 'queued') throw new Error(`admitting ${jobId} in state ${job.state}`);
    job.state = 'running';
    job.admittedSeq = this.admissions;
    this.admissions += 1;
  }

  finish(jobId: string): void {
    const job = this.find(jobId);
    if (job.state !== 'running') throw new Error(`finishing ${jobId} in state ${job.state}`);
    job.state = 'done';
  }

  private find(jobId: string): SimJob {
    const job = this.jobs.find((candidate) => candidate.jobId === jobId);
    if (!job) throw new Error(`unknown job ${jobId}`);
    return job;
  }
}
