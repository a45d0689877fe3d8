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

/**
 * Independent model of the shared cap, written from the rule rather than from the planner: an owner counts as
 * present while it holds a slot (a running job), has an admissible job (the head rule, from the World), or was
 * present at a pass less than `graceMs` ago. An owner holding `cap` slots may be admitted only while no other
 * owner is present.
 */
export class ShareOracle {
  private readonly lastPresent = new Map<string, number>();
  constructor(
    readonly cap: number,
    readonly graceMs: number,
  ) {}

  held(world: World, ownerId: string): number {
    return world.jobs.filter((job) => job.ownerId === ownerId && job.state === 'running').length;
  }

  present(world: World, now: number): Set<string> {
    const result = new Set<string>();
    for (const job of world.jobs) if (job.state === 'running') result.add(job.ownerId);
    for (const ownerId of world.ownersWithWork()) result.add(ownerId);
    for (const [ownerId, at] of this.lastPresent) if (now - Math.min(at, now) < this.graceMs) result.add(ownerId);
    return result;
  }

  /** True when the owner is held back: at the cap while someone else is present. */
  capped(world: World, ownerId: string, now: number): boolean {
    if (this.held(world, ownerId) < this.cap) return false;
    return [...this.present(world, now)].some((other) => other !== ownerId);
  }

  /** Owners with an admissible job that the cap does not hold back. */
  ownersWithWork(world: World, now: number): Set<string> {
    return new Set([...world.ownersWithWork()].filter((ownerId) => !this.capped(world, ownerId, now)));
  }

  /** Call after every pass: remember who was present at it. */
  observe(world: World, now: number): void {
    for (const ownerId of this.present(world, now)) {
      const remembered = this.lastPresent.get(ownerId);
      const presentNow =
        world.ownersWithWork().has(ownerId) || world.jobs.some((job) => job.ownerId === ownerId && job.state === 'running');
      if (presentNow) this.lastPresent.set(ownerId, now);
      else if (remembered !== undefined) this.lastPresent.set(ownerId, Math.min(remembered, now));
    }
    for (const [ownerId, at] of this.lastPresent) if (now - at >= this.graceMs) this.lastPresent.delete(ownerId);
  }
}
