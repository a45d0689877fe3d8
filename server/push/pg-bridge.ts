import 'server-only';
import type { EventEmitter } from 'node:events';
import pg from 'pg';
import type { AccountTeamChange, BatchChange, BusMap, CredentialsChange, FileChange, LiveOutputChange, TeamChange } from './bus';
/** A run's end as the run executor announces it (server/agents/run-events.ts RunEvent). */
export type RunFinished = { runId: string; conversationId: string; ownerId: string; status: string; teamId?: string | null; remote?: boolean };

/** What crosses between processes. A conversation change travels without its id: ids are numbered per process. */
type Note =
  | { k: 'team'; c: TeamChange }
  | { k: 'accountTeams'; c: AccountTeamChange }
  | { k: 'batch'; c: BatchChange }
  | { k: 'file'; c: FileChange }
  | { k: 'conversation'; c: { conversationId: string; runIds: string[] } }
  | { k: 'liveOutput'; c: LiveOutputChange }
  /** A credential of the account may have been revoked: its streams here re-check theirs now. */
  | { k: 'credentials'; c: CredentialsChange }
  /** The sender was away and could not send some notes: every process's streams re-read. */
  | { k: 'resync' }
  /** A run finished in the sender (its waiters and its team's lease holder elsewhere hear of it). */
  | { k: 'run'; c: RunFinished }
  /** Stop this run if you execute it (ADR 033 §5: a cancel asked in another process). */
  | { k: 'cancel'; runId: string }
  /** Plan and reconcile now: work you must launch was admitted in the sender. */
  | { k: 'wake' };
type Envelope = Note & { o: string };

export const PUSH_CHANNEL = 'ensemble_push';
/** Postgres refuses a NOTIFY payload of 8,000 bytes or more; leave room for the envelope. */
export const MAX_PAYLOAD_BYTES = 7_900;
/** How long stop() waits for notes already queued to be sent. */
const STOP_FLUSH_MS = 2_000;

export type PushBridgeOptions = {
  url: string;
  /** This process (its own notifications come back to it and are ignored). */
  origin: string;
  bus: EventEmitter<BusMap>;
  /** A conversation change from another process, to be numbered and announced here. */
  onConversation: (conversationId: string, runIds: string[]) => void;
  /** The connection came back after a loss: notifications sent meanwhile are gone, so every stream must re-read. */
  onResync: () => void;
  /** This process's run events: its runs' ends are sent to the others (absent: none are). */
  runs?: Pick<EventEmitter, 'on' | 'off'>;
  /** Another process's run finished (relayed with `remote: true`). */
  onRunFinished?: (event: RunFinished) => void;
  onCancel?: (runId: string) => void;
  onWake?: () => void;
  reconnectMs?: { first: number; max: number };
};

/**
 * Push across processes (ADR 033 §6): what this process's bus announces (after its commit) is sent as a NOTIFY on
 * one dedicated connection, and what other processes send arrives through LISTEN on that same connection and is
 * announced on this process's bus, so a viewer's stream hears every change whichever process made it. One
 * connection keeps this process's notifications in the order they were announced. When the connection drops it is
 * opened again with backoff, and open streams are told to re-read (onResync): NOTIFY is not stored for a listener
 * that is away. Payloads carry ids and revisions only (a team change with more job ids than fit says "re-read":
 * jobIds null); live output carries its text, which is bounded far below the limit (ADR 031).
 */
export class PushBridge {
  private client: pg.Client | undefined;
  private relaying = false;
  private sending: Promise<void> = Promise.resolve();
  private stopped = false;
  private connectedOnce = false;
  private missedWhileAway = false;
  private delay: number;
  private retry: NodeJS.Timeout | undefined;
  private readonly unsubscribe: (() => void)[] = [];
  /** For tests and the health figures: notifications sent and received, and reconnections. */
  readonly stats = { sent: 0, received: 0, reconnects: 0, dropped: 0 };

  constructor(private readonly options: PushBridgeOptions) {
    this.delay = options.reconnectMs?.first ?? 250;
  }

  /** Connect and LISTEN; resolves once listening (the first time), so nothing announced after it is missed. */
  async start(): Promise<void> {
    this.forward('team', (c) => ({ k: 'team', c }));
    this.forward('accountTeams', (c) => ({ k: 'accountTeams', c }));
    this.forward('batch', (c) => ({ k: 'batch', c }));
    this.forward('file', (c) => ({ k: 'file', c }));
    this.forward('conversation', (c) => ({ k: 'conversation', c: { conversationId: c.conversationId, runIds: c.runIds } }));
    this.forward('liveOutput', (c) => ({ k: 'liveOutput', c }));
    this.forward('credentials', (c) => ({ k: 'credentials', c: { accountId: c.accountId } }));
    const runs = this.options.runs;
    if (runs) {
      const listener = (event: RunFinished) => {
        if (!event.remote) this.publish({ k: 'run', c: { runId: event.runId, conversationId: event.conversationId, ownerId: event.ownerId, status: event.status, teamId: event.teamId ?? null } });
      };
      runs.on('run:finished', listener);
      this.unsubscribe.push(() => runs.off('run:finished', listener));
    }
    await this.connect();
  }

  /** Ask the process executing a run to stop it (its row says so too, for a process that misses this). */
  sendCancel(runId: string): void {
    this.publish({ k: 'cancel', runId });
  }

  /** Ask every other process to plan and reconcile now. */
  sendWake(): void {
    this.publish({ k: 'wake' });
  }

  /** The LISTEN connection's server process (tests cut it to prove the reconnect). */
  get listenerPid(): number | undefined {
    return (this.client as (pg.Client & { processID?: number }) | undefined)?.processID;
  }

  /**
   * Stop listening and forwarding. Notes already announced are sent first (a shutdown's last run ends reach the
   * other processes now, not at their next re-read), for at most STOP_FLUSH_MS: a connection that hangs must not
   * hold up the shutdown.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    for (const off of this.unsubscribe) off();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.sending, new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_FLUSH_MS)))]);
    clearTimeout(timer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch((error: Error) => console.error('[push] closing the LISTEN connection:', error.message));
  }

  private forward<K extends keyof BusMap>(kind: K, note: (change: BusMap[K][0]) => Note): void {
    const listener = (change: BusMap[K][0]) => {
      if (!this.relaying) this.publish(note(change));
    };
    const bus = this.options.bus as unknown as EventEmitter;
    bus.on(kind, listener);
    this.unsubscribe.push(() => bus.off(kind, listener));
  }

  private publish(note: Note): void {
    const client = this.client;
    if (!client) {
      // Between connections: not sent. Once back, this process tells the others to re-read (see connect()).
      this.stats.dropped += 1;
      this.missedWhileAway = true;
      return;
    }
    let payload = JSON.stringify({ ...note, o: this.options.origin } satisfies Envelope);
    if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES && note.k === 'team') {
      payload = JSON.stringify({ k: 'team', c: { ...note.c, jobIds: null }, o: this.options.origin });
    }
    if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) {
      this.stats.dropped += 1;
      console.error(`[push] a ${note.k} change is too large to send to other processes (${Buffer.byteLength(payload)} bytes)`);
      return;
    }
    this.stats.sent += 1;
    // One query at a time on the connection (the driver's own queueing of concurrent queries is deprecated); the
    // chain keeps this process's notes in the order they were announced.
    this.sending = this.sending
      .then(() => client.query('select pg_notify($1, $2)', [PUSH_CHANNEL, payload]))
      .then(
        () => undefined,
        (error: Error) => {
          this.stats.dropped += 1;
          this.missedWhileAway = true;
          console.error('[push] NOTIFY failed:', error.message);
        },
      );
  }

  private receive(payload: string | undefined): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(payload ?? '') as Envelope;
    } catch {
      console.error('[push] ignored an unreadable notification');
      return;
    }
    if (envelope.o === this.options.origin) return;
    this.stats.received += 1;
    this.relaying = true;
    try {
      if (envelope.k === 'conversation') this.options.onConversation(envelope.c.conversationId, envelope.c.runIds);
      else if (envelope.k === 'resync') this.options.onResync();
      else if (envelope.k === 'run') this.options.onRunFinished?.({ ...envelope.c, remote: true });
      else if (envelope.k === 'cancel') this.options.onCancel?.(envelope.runId);
      else if (envelope.k === 'wake') this.options.onWake?.();
      else (this.options.bus as unknown as EventEmitter).emit(envelope.k, envelope.c);
    } finally {
      this.relaying = false;
    }
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.url });
    client.on('notification', (message) => {
      if (message.channel === PUSH_CHANNEL) this.receive(message.payload);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`listen ${PUSH_CHANNEL}`);
    } catch (error) {
      this.lost(client, error as Error);
      if (!this.connectedOnce) throw error;
      return;
    }
    if (this.stopped) {
      await client.end();
      return;
    }
    this.client = client;
    this.delay = this.options.reconnectMs?.first ?? 250;
    if (this.connectedOnce) {
      this.stats.reconnects += 1;
      this.options.onResync();
      if (this.missedWhileAway) {
        this.missedWhileAway = false;
        this.publish({ k: 'resync' });
      }
    }
    this.connectedOnce = true;
  }

  private lost(client: pg.Client, error?: Error): void {
    if (this.client === client) this.client = undefined;
    else if (this.client) return; // an older connection's late event
    if (this.stopped || this.retry || !this.connectedOnce) return;
    if (error) console.error('[push] LISTEN connection lost:', error.message);
    // The connection is already broken: ending it only releases the socket, and its error says nothing new.
    client.end().catch(() => undefined);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.connect();
    }, this.delay);
    this.delay = Math.min(this.delay * 2, this.options.reconnectMs?.max ?? 5_000);
  }
}
