import 'server-only';
import pg from 'pg';

/**
 * The per-account stream cap counted across the app processes of one Postgres database (ADR 033). Slot i of an
 * account is a session advisory lock, keyed by a 64-bit hash of (account, i), held on one connection of this
 * process's own: Postgres lets one session hold it at a time, so the account's open streams over every process never
 * exceed the slots, and a process that dies (or loses this connection) gives its slots back with the session. A
 * session may take a lock it already holds again (advisory locks stack per session), so the slots held here are
 * remembered and only the others are tried. One query at a time on the connection, in order.
 *
 * When the connection drops, every slot held here is gone: onLost closes this process's streams (their clients
 * reconnect and claim again) rather than leave them counted nowhere.
 */
export class SharedStreamSlots {
  private client: pg.Client | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** Per account, the slots this process holds, each with the claim that took it. */
  private readonly held = new Map<string, Map<number, symbol>>();
  private stopped = false;

  constructor(private readonly options: { url: string; onLost: () => void }) {}

  /** Take one of the account's `max` slots; the returned function gives it back (settled once it is). undefined: all taken. */
  take(accountId: string, max: number): Promise<(() => Promise<void>) | undefined> {
    return this.serial(async () => {
      if (this.stopped) throw new Error('the shared stream slots are closed (shutting down)');
      const mine = this.held.get(accountId) ?? new Map<number, symbol>();
      const candidates = Array.from({ length: max }, (_, slot) => slot).filter((slot) => !mine.has(slot));
      if (candidates.length === 0) return undefined;
      const client = await this.connection();
      // Stops at the first slot whose lock it gets: one lock taken at most.
      const { rows } = await client.query<{ slot: number }>(
        `select slot from unnest($2::int[]) as slot where pg_try_advisory_lock(${key('slot')}) limit 1`,
        [accountId, candidates],
      );
      const slot = rows[0]?.slot;
      if (slot === undefined) return undefined;
      const claim = Symbol(accountId);
      mine.set(slot, claim);
      this.held.set(accountId, mine);
      return () => this.release(accountId, slot, claim);
    });
  }

  /** Slots this process holds for the account (tests). */
  heldCount(accountId: string): number {
    return this.held.get(accountId)?.size ?? 0;
  }

  /** Close the connection (graceful shutdown, after the streams were closed): its slots go with the session. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.queue.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    this.held.clear();
    await client?.end().catch(() => undefined);
  }

  private release(accountId: string, slot: number, claim: symbol): Promise<void> {
    return this.serial(async () => {
      const mine = this.held.get(accountId);
      // Already gone with a lost connection (and maybe taken again since, by another claim): nothing to give back.
      if (mine?.get(slot) !== claim || !this.client) return;
      mine.delete(slot);
      if (mine.size === 0) this.held.delete(accountId);
      await this.client.query(`select pg_advisory_unlock(${key('$2::int')})`, [accountId, slot]);
    }).catch((error: Error) => console.error('[push] giving a stream slot back failed:', error.message));
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new pg.Client({ connectionString: this.options.url });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    await client.connect();
    this.client = client;
    return client;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    const hadSlots = this.held.size > 0;
    this.held.clear();
    if (hadSlots && !this.stopped) {
      console.error('[push] the stream-slot connection was lost: closing this process\'s streams (they reconnect)');
      this.options.onLost();
    }
  }
}

/** The advisory lock of a slot of account $1 (64-bit: two accounts sharing slots would need a hash collision). */
const key = (slot: string) => `hashtextextended('ensemble:stream:' || $1::text || ':' || ${slot}, 0)`;

// Route bundles and instrumentation may load separate copies: one per process.
const g = globalThis as unknown as { __ensembleStreamSlots?: SharedStreamSlots };

/** Set by start-up when several processes may share the database; undefined: this process counts alone. */
export const sharedStreamSlots = (): SharedStreamSlots | undefined => g.__ensembleStreamSlots;

export function setSharedStreamSlots(slots: SharedStreamSlots | undefined): void {
  g.__ensembleStreamSlots = slots;
}
