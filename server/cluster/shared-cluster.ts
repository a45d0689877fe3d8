import 'server-only';
import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { LIMITS } from '@/lib/limits';
import { withPgSession } from '@/server/db/pg-session';
import type { Cluster } from './cluster';
import type { StepFence } from './fence';
import { logHandover } from './handover-log';
import { thisProcess, type ProcessIdentity } from './identity';

export type SharedClusterOptions = {
  url: string;
  /** Tests run several "processes" in one. */
  identity?: ProcessIdentity;
  heartbeatMs?: number;
  leaseMs?: number;
  selfFenceMs?: number;
  /** Another process whose last beat is older than this missed a beat (default MISSED_BEATS × heartbeatMs). */
  missedBeatMs?: number;
  /** This process can no longer prove it is alive to the others: stop it (start-up: exit at once). */
  onFenced: (reason: string) => void;
  /** Ask the other processes to plan now (start-up: a note on the push bridge). */
  wakeOthers?: () => void;
  /** A beat claimed teams (free, or taken from a dead process): plan here now (start-up: the scheduler's wake). */
  onClaimed?: () => void;
  /**
   * Whether this process executes no run at this moment (start-up: no run registered as executing). With no team
   * lease held either, a beat found late re-registers under a new identity instead of stopping (ADR 044 §7).
   * Absent: a late beat always stops the process.
   */
  executesNoRun?: () => boolean;
  /**
   * While a process started before it is live, a process just started takes no team and no run over until its beats
   * have come on time (≤ 2 beats apart) for this long, or until settleCapMs after its start (ADR 044 §7). Default 0:
   * at once.
   */
  settleMs?: number;
  settleCapMs?: number;
};

type Held = { epoch: number; renewedAt: number };
type TickHook = (cluster: SharedCluster) => Promise<void>;

/**
 * A process whose last beat is older than this many beats has missed one: this process beats again the moment that
 * process's lease runs out (plus EXPIRY_MARGIN_MS), instead of up to a beat later at its own next regular beat.
 */
const MISSED_BEATS = 1.5;
const EXPIRY_MARGIN_MS = 10;

const PLANNER_LOCK = "hashtext('ensemble:planner')";
const ms = (param: string) => `(${param} * interval '1 millisecond')`;

/**
 * Several app processes on one Postgres database (ADR 033 §4–5). Each registers in app_processes and heartbeats
 * every heartbeatMs on a connection of its own (never behind the process's queued writes); the same beat extends
 * its team leases, gives back the leases of teams with nothing left to do, claims its share of teams whose lease is
 * free or expired, and runs the tick hooks start-up registers (taking over a dead process's runs, carrying out cancel
 * requests). A process stops (onFenced) when a beat finds its last recorded heartbeat older than the lease (its event
 * loop stalled and the others may have taken over) or when it cannot reach the database for selfFenceMs (< the lease).
 * Liveness that decides a takeover is judged in SQL at the moment of the takeover (heartbeat_at against the
 * database's clock), never from a cached set.
 */
export class SharedCluster implements Cluster {
  readonly shared = true;
  /** Replaced when a late beat re-registers this process (rejoin): never the identity others judged dead. */
  private identity: ProcessIdentity;
  private readonly heartbeatMs: number;
  readonly leaseMs: number;
  private readonly selfFenceMs: number;
  private readonly missedBeatMs: number;
  private readonly settleMs: number;
  private readonly settleCapMs: number;
  private readonly held = new Map<string, Held>();
  private readonly hooks = new Map<string, TickHook>();
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private lastBeat = performance.now();
  private lastBeatStarted = performance.now();
  /** The extra beat due when a process that missed beats runs out of lease (one timer: the earliest). */
  private expiryTimer: NodeJS.Timeout | undefined;
  private expiryAt = Infinity;
  private stopped = false;
  /** Live processes at the last beat (for the claim share only; takeovers judge liveness in SQL). */
  liveCount = 1;
  readonly stats = { beats: 0, claimed: 0, released: 0, lost: 0, rejoined: 0 };
  private readonly startedAt = performance.now();
  /** The last beat that came late (or the start): settled once settleMs of on-time beats followed it. */
  private steadySince = performance.now();
  private settled = false;
  /** Live processes registered before this one, at the last beat (null: not read yet). */
  private olderLive: number | null = null;
  /** Claims sent and not yet answered: a claim committed for the old identity must not be answered to the new one. */
  private claiming = 0;

  constructor(private readonly options: SharedClusterOptions) {
    this.identity = options.identity ?? thisProcess();
    this.heartbeatMs = options.heartbeatMs ?? LIMITS.cluster.heartbeatMs;
    this.leaseMs = options.leaseMs ?? LIMITS.cluster.leaseMs;
    this.selfFenceMs = options.selfFenceMs ?? LIMITS.cluster.selfFenceMs;
    this.missedBeatMs = options.missedBeatMs ?? Math.round(MISSED_BEATS * this.heartbeatMs);
    this.settleMs = options.settleMs ?? 0;
    this.settleCapMs = options.settleCapMs ?? 3 * this.settleMs;
  }

  /** This process among the others: what its runs and leases are written under (changes only at a rejoin). */
  get processId(): string {
    return this.identity.id;
  }

  /** Register this process and start beating; resolves after the first beat (leases and hooks included). */
  async start(): Promise<void> {
    await this.query(
      `insert into app_processes (id, pid, host, started_at, heartbeat_at) values ($1, $2, $3, now(), now())
       on conflict (id) do update set heartbeat_at = now()`,
      [this.processId, this.identity.pid, this.identity.host],
    );
    this.lastBeat = performance.now();
    this.timer = setInterval(() => void this.tick(), this.heartbeatMs);
    this.timer.unref();
    await this.tick();
  }

  /** Work to do at every beat (start-up: run takeover, cancel requests). Keyed, so a second copy replaces it. */
  onTick(name: string, hook: TickHook): void {
    this.hooks.set(name, hook);
  }

  /** One beat now (tests; the timer calls it too). Beats never overlap. */
  tick(): Promise<void> {
    this.ticking ??= this.beat().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async beat(): Promise<void> {
    if (this.stopped) return;
    const sentAt = performance.now();
    // A beat much later than its interval (a busy event loop, a slow previous beat) delays every takeover by as much.
    const gap = sentAt - this.lastBeatStarted;
    this.lastBeatStarted = sentAt;
    if (this.stats.beats > 0 && gap > 2 * this.heartbeatMs) {
      console.log(`[cluster] beat ${Math.round(gap)} ms after the last`);
      this.steadySince = sentAt;
    }
    try {
      // Only while our last beat is younger than the lease, judged by the database's clock as every takeover is: a
      // process whose event loop stalled past it finds out here, before its next write, and stops.
      const beat = await this.query(
        `update app_processes set heartbeat_at = now() where id = $1 and heartbeat_at > now() - ${ms('$2')} returning id`,
        [this.processId, this.leaseMs],
      );
      // Our last beat is older than the lease (others may have taken our teams and runs over), or our row is gone
      // (judged dead, or removed by an operator): stop — unless nothing of ours could be run twice (rejoin()).
      if (beat.rowCount === 0) {
        const reason = `no heartbeat recorded for longer than the lease (${this.leaseMs} ms), or this process's row was removed`;
        if (!(await this.rejoin(reason))) return this.fenced(reason);
      }
      this.lastBeat = sentAt;
      this.stats.beats += 1;
      await this.renewLeases(sentAt);
      await this.releaseIdle();
      const { claimed, expiresInMs } = await this.claimShare();
      if (claimed > 0) this.options.onClaimed?.();
      this.beatAtExpiry(expiresInMs);
      // Rows of processes gone for an hour: their runs were taken over long ago (takeover never needs the row).
      await this.query(`delete from app_processes where heartbeat_at < now() - interval '1 hour'`, []);
    } catch (error) {
      // The next beat tries again on a new connection; without the database for too long, stop (late()).
      console.error('[cluster] heartbeat failed:', (error as Error).message);
      this.dropConnection();
      this.late();
      return;
    }
    // Settling: the others take the dead processes' runs over (run takeover is the hooks' work).
    if (this.settling()) return;
    // Not awaited by the beat: a takeover recovering runs can take longer than the self-fence time, and the next
    // beat must not wait for it. One round of hooks at a time; a beat during a round asks for one more right after
    // it, so a takeover due at this beat (a lease just ran out) waits for the round in progress, not for a later beat.
    if (this.hooking) {
      this.hooksAgain = true;
      return;
    }
    this.hooking = (async () => {
      do {
        this.hooksAgain = false;
        await this.runHooks();
      } while (this.hooksAgain && !this.stopped);
    })().finally(() => (this.hooking = undefined));
  }

  private hooking: Promise<void> | undefined;
  private hooksAgain = false;

  /**
   * Another process missed a beat and its lease runs out in expiresInMs: beat again right then, so its teams and runs
   * are taken over at the expiry rather than at our next regular beat (up to a beat later). Liveness is still judged
   * in SQL by that beat: a process that beat again meanwhile keeps everything, and the extra beat only costs its
   * statements.
   */
  private beatAtExpiry(expiresInMs: number | null): void {
    if (expiresInMs == null || this.stopped) return;
    const at = performance.now() + Math.max(0, expiresInMs) + EXPIRY_MARGIN_MS;
    if (this.expiryTimer && at >= this.expiryAt) return;
    clearTimeout(this.expiryTimer);
    this.expiryAt = at;
    this.expiryTimer = setTimeout(() => {
      this.expiryTimer = undefined;
      this.expiryAt = Infinity;
      void this.beatAfterCurrent();
    }, at - performance.now());
    this.expiryTimer.unref();
  }

  /** A beat that starts after the one in progress (whose statements may have run before the expiry). */
  private async beatAfterCurrent(): Promise<void> {
    while (this.ticking) await this.ticking;
    await this.tick();
  }

  /** The hooks' round started by the last beat (tests; stop waits for it). */
  get hooksSettled(): Promise<void> {
    return this.hooking ?? Promise.resolve();
  }

  private async runHooks(): Promise<void> {
    for (const [name, hook] of this.hooks) {
      if (this.stopped) return;
      const started = performance.now();
      await hook(this).catch((error: Error) => console.error(`[cluster] ${name} failed:`, error));
      // A round longer than a beat delays the next takeover (rounds never overlap): say so, it is part of a handover.
      const took = performance.now() - started;
      if (took > this.heartbeatMs) console.log(`[cluster] ${name} took ${Math.round(took)} ms`);
    }
  }

  /**
   * Stop at once when the database has been out of reach for longer than selfFenceMs (< the lease): the others, who
   * may still reach it, are about to take our teams and runs over. (A beat that is merely late — a stalled event
   * loop — is judged by the database instead; see beat().)
   */
  late(): boolean {
    const age = performance.now() - this.lastBeat;
    if (age <= this.selfFenceMs) return false;
    this.fenced(`no heartbeat for ${Math.round(age)} ms (limit ${this.selfFenceMs} ms)`);
    return true;
  }

  /**
   * A process just started, on a machine busy enough to starve it (loading its code, its first requests), is the one
   * most likely to miss its lease; holding nothing, it then rejoins instead of stopping (rejoin()). So while a process
   * started before it is live to take teams and runs over, it takes none until its beats have been on time for
   * settleMs (or settleCapMs passed, so a machine that never calms down still gets every process's share). The oldest
   * live process never waits: so there is always one that takes a dead process's work over at once (several
   * processes restarted one after another must not all be settling when a lease runs out).
   */
  private settling(): boolean {
    if (this.settled) return false;
    const now = performance.now();
    if (this.olderLive === 0 || now - this.steadySince >= this.settleMs || now - this.startedAt >= this.settleCapMs) {
      this.settled = true;
      return false;
    }
    return true;
  }

  /** Nothing of this process that another could take over and run a second time: no team lease, no run executing. */
  private holdsNothing(): boolean {
    return !this.stopped && this.held.size === 0 && this.claiming === 0 && (this.options.executesNoRun?.() ?? false);
  }

  /**
   * A late beat of a process that holds nothing (ADR 044 §7): register again under a new identity instead of stopping.
   * The others may already treat the old identity as dead and take over whatever was written under it (a run whose
   * creation committed during the stall, a lease claimed then); this process never acts under it again: every run it
   * launches must name the new identity (markRunning checks runs.process_id), and team writes check (team, process,
   * epoch). Holding nothing is checked again after the registration's await, and the switch is synchronous with it.
   * Answers false when the process must stop instead.
   */
  private async rejoin(reason: string): Promise<boolean> {
    if (!this.holdsNothing()) return false;
    const was = this.identity;
    const next: ProcessIdentity = { ...was, id: crypto.randomUUID() };
    await this.query(`insert into app_processes (id, pid, host, started_at, heartbeat_at) values ($1, $2, $3, now(), now())`, [
      next.id,
      next.pid,
      next.host,
    ]);
    if (!this.holdsNothing()) {
      await this.query('delete from app_processes where id = $1', [next.id]).catch(() => undefined);
      return false;
    }
    this.identity = next;
    this.lastBeat = performance.now();
    // It just proved unsteady: it settles again before it takes anything over (settling()).
    this.settled = false;
    this.steadySince = this.lastBeat;
    // The old identity's leases (none in memory; a step under one checks it per write) and row go now: its teams and
    // runs are taken over at once rather than when they expire.
    await this.query('delete from team_leases where process_id = $1', [was.id]);
    await this.query('delete from app_processes where id = $1', [was.id]);
    this.stats.rejoined += 1;
    console.log(`[cluster] ${reason}; holding no team and executing no run, this process goes on as ${next.id} (was ${was.id})`);
    return true;
  }

  private fenced(reason: string): void {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.expiryTimer);
    this.held.clear();
    this.options.onFenced(reason);
  }

  private async renewLeases(sentAt: number): Promise<void> {
    const { rows } = await this.query<{ team_id: string; epoch: number }>(
      `update team_leases set expires_at = now() + ${ms('$2')} where process_id = $1 returning team_id, epoch`,
      [this.processId, this.leaseMs],
    );
    const renewed = new Set<string>();
    for (const row of rows) {
      const held = this.held.get(row.team_id);
      // Still ours at the epoch we took it with; anything else was taken over meanwhile and claimed back.
      if (held && held.epoch === row.epoch) {
        held.renewedAt = sentAt;
        renewed.add(row.team_id);
      }
    }
    for (const teamId of [...this.held.keys()]) {
      if (!renewed.has(teamId)) {
        this.held.delete(teamId);
        this.stats.lost += 1;
      }
    }
  }

  /** Teams with nothing left to do are given back, so the teams that get work next spread over the processes. */
  private async releaseIdle(): Promise<void> {
    const { rows } = await this.query<{ team_id: string }>(
      `delete from team_leases l using teams t
        where l.team_id = t.id and l.process_id = $1 and t.has_pending = 0 returning l.team_id`,
      [this.processId],
    );
    for (const row of rows) this.held.delete(row.team_id);
    this.stats.released += rows.length;
  }

  /**
   * Take free or expired leases of teams with work, up to this process's share (teams with work ÷ live processes that take teams: not one that may still be settling).
   * Answers how many it took, and in how long the earliest other process that missed a beat runs out of lease —
   * its heartbeat's and its teams' (renewed a moment after the heartbeat), whichever ends later; null: none did.
   * Read in the same statement as the live count.
   */
  private async claimShare(): Promise<{ claimed: number; expiresInMs: number | null }> {
    const { rows } = await this.query<{ live: number; sharing: number; older: number; pending: number; expires_in: number | null }>(
      `select (select count(*) from app_processes where heartbeat_at > now() - ${ms('$1')})::int as live,
              (select count(*) from app_processes p where p.heartbeat_at > now() - ${ms('$1')}
                  and (p.id = $2 or p.started_at < now() - ${ms('$4')} or not exists (
                    select 1 from app_processes o where o.heartbeat_at > now() - ${ms('$1')} and o.started_at < p.started_at)))::int as sharing,
              (select count(*) from app_processes o where o.heartbeat_at > now() - ${ms('$1')} and o.id <> $2
                  and o.started_at < (select started_at from app_processes where id = $2))::int as older,
              (select count(*) from teams where has_pending = 1)::int as pending,
              (select ceil(extract(epoch from min(ends) - now()) * 1000)::int from (
                 select greatest(p.heartbeat_at + ${ms('$1')}, (select max(l.expires_at) from team_leases l where l.process_id = p.id)) as ends
                   from app_processes p where p.id <> $2 and p.heartbeat_at < now() - ${ms('$3')}) missed
                where ends > now()) as expires_in`,
      [this.leaseMs, this.processId, this.missedBeatMs, this.settleCapMs],
    );
    this.liveCount = Math.max(1, rows[0]?.live ?? 1);
    // The share is split among the processes that take teams: a process that may still be settling (started within the
    // settle cap, with an older one live) takes none, so its part goes to the others rather than waiting for it.
    const sharing = Math.max(1, rows[0]?.sharing ?? 1);
    this.olderLive = rows[0]?.older ?? 0;
    const expiresInMs = rows[0]?.expires_in ?? null;
    if (this.settling()) return { claimed: 0, expiresInMs };
    const want = Math.ceil((rows[0]?.pending ?? 0) / sharing) - this.held.size;
    if (want <= 0) return { claimed: 0, expiresInMs };
    const free = await this.query<{ id: string }>(
      `select t.id from teams t left join team_leases l on l.team_id = t.id
        where t.has_pending = 1 and (l.team_id is null or l.expires_at < now()) order by random() limit $1`,
      [want],
    );
    let claimed = 0;
    for (const { id } of free.rows) if (await this.claim(id)) claimed += 1;
    return { claimed, expiresInMs };
  }

  holds(teamId: string): boolean {
    const held = this.held.get(teamId);
    return !!held && !this.stopped && performance.now() - held.renewedAt < this.selfFenceMs;
  }

  async claim(teamId: string): Promise<boolean> {
    if (this.holds(teamId)) return true;
    // Settling, it takes no team, not even for a job its own planning pass admitted: that job is launched by the
    // process that takes the team (the others are woken, as for a team another process holds).
    if (this.stopped || this.settling()) return false;
    const sentAt = performance.now();
    const as = this.identity;
    this.claiming += 1;
    try {
      return await this.claimAs(teamId, as, sentAt);
    } finally {
      this.claiming -= 1;
    }
  }

  private async claimAs(teamId: string, as: ProcessIdentity, sentAt: number): Promise<boolean> {
    // A new holder gets the next epoch; our own (unexpired) lease keeps its epoch. A live other holder: no row.
    // `before` (the statement's snapshot) names the holder whose expired lease this claim takes, for the log.
    const { rows } = await this.query<{ epoch: number; was: string | null }>(
      `with before as (select process_id from team_leases where team_id = $1)
       insert into team_leases (team_id, process_id, epoch, expires_at)
         select $1, $2, 1, now() + ${ms('$3')} where exists (select 1 from teams where id = $1)
       on conflict (team_id) do update set process_id = excluded.process_id, expires_at = excluded.expires_at,
         epoch = case when team_leases.process_id = excluded.process_id then team_leases.epoch else team_leases.epoch + 1 end
       where team_leases.process_id = excluded.process_id or team_leases.expires_at < now()
       returning epoch, (select process_id from before) as was`,
      [teamId, as.id, this.leaseMs],
    );
    const row = rows[0];
    // (A rejoin waits for claims in flight: `as` is still this process's identity here.)
    if (!row) return false;
    this.held.set(teamId, { epoch: row.epoch, renewedAt: sentAt });
    this.stats.claimed += 1;
    // A takeover is rare and worth a line: how long a dead process's teams waited is read from these (crash test).
    if (row.was && row.was !== this.processId) logHandover('team', teamId, row.was, this.processId);
    return true;
  }

  fenceFor(teamId: string): StepFence | undefined {
    const held = this.held.get(teamId);
    return held ? { teamId, processId: this.processId, epoch: held.epoch } : undefined;
  }

  ownsRun(processId: string | null): boolean {
    return processId === this.processId;
  }

  /** The teams whose lease this process holds (tests, diagnostics). */
  heldTeams(): string[] {
    return [...this.held.keys()].filter((teamId) => this.holds(teamId));
  }

  async planningPass<T>(fn: (round: unknown) => Promise<{ round: unknown; value: T }>): Promise<T> {
    return withPgSession(async (client) => {
      // A transaction lock: released by COMMIT or ROLLBACK, and by Postgres when this process's connection dies.
      await client.query('begin');
      try {
        await client.query(`set local lock_timeout = '${Math.max(this.leaseMs, 1_000)}ms'`);
        await client.query(`select pg_advisory_xact_lock(${PLANNER_LOCK})`);
        const { rows } = await client.query<{ round: unknown }>(`select round from scheduler_rounds where name = 'owner-fair'`);
        const result = await fn(rows[0]?.round ?? null);
        await client.query(
          `insert into scheduler_rounds (name, round, updated_at) values ('owner-fair', $1, now())
           on conflict (name) do update set round = excluded.round, updated_at = excluded.updated_at`,
          [JSON.stringify(result.round)],
        );
        await client.query('commit');
        return result.value;
      } catch (error) {
        await client.query('rollback');
        throw error;
      }
    });
  }

  wakeOthers(): void {
    this.options.wakeOthers?.();
  }

  /**
   * Leave cleanly (graceful shutdown, after the scheduler drained and the runs were suspended): the leases and the
   * process row go at once, so the others take over at their next beat instead of waiting for the leases to expire.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.expiryTimer);
    await this.ticking;
    await this.hooking;
    try {
      await this.query('delete from team_leases where process_id = $1', [this.processId]);
      await this.query('delete from app_processes where id = $1', [this.processId]);
    } finally {
      this.held.clear();
      this.dropConnection();
    }
  }

  private async query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    if (!this.client) {
      const client = new pg.Client({ connectionString: this.options.url });
      // Errors surface as the failing query's rejection; the next beat opens a new connection.
      client.on('error', () => this.dropConnection(client));
      try {
        await client.connect();
      } catch (error) {
        client.end().catch(() => undefined);
        throw error;
      }
      this.client = client;
    }
    return this.client.query<R>(text, values);
  }

  private dropConnection(client = this.client): void {
    if (!client) return;
    if (this.client === client) this.client = undefined;
    client.end().catch(() => undefined);
  }
}
