/**
 * The crash test's servers: N `next start` processes on one database, which of them answer, and what the killer did
 * to each. Every request goes to a random live process; a caller waits while none is up.
 */
import { ServerProcess, waitForHealth, type Exit } from './server';

/** What server/startup.ts logs before a fenced process exits 1 (ADR 044 §7: a late beat while it holds work). */
const FENCED_STOP = '[ensemble] stopping now: ';

/**
 * An exit the harness did not cause. `fenced`: the designed stop above, after which the harness starts the process
 * again as its supervisor would (`restartedAt`: when the new one spawned; `restartError` if it could not). Any
 * other is a violation.
 */
export type OwnExit = { process: number; exit: Exit; at: number; fenced: boolean; restartedAt?: number; restartError?: string };

/** One app process slot: restarted in place (same port, env and data directory) after each kill. */
export class Node {
  server!: ServerProcess;
  readonly baseUrl: string;
  up = false;
  kills = 0;
  /** Spawn → healthy, per start. */
  readonly healthMs: number[] = [];
  /** Exits the harness did not cause, in order. */
  readonly ownExits: OwnExit[] = [];
  /** The supervisor's start after a fenced stop, while it runs: a kill or stop acts on the process it starts. */
  private supervising: Promise<void> | null = null;
  /** Processes the harness signalled itself: their exit is its own doing. */
  private readonly signalled = new WeakSet<ServerProcess>();

  constructor(
    readonly index: number,
    readonly port: number,
    readonly env: NodeJS.ProcessEnv,
    readonly logFile: string,
    private readonly onUp: () => void,
  ) {
    this.baseUrl = `http://127.0.0.1:${port}`;
  }

  async start(): Promise<number> {
    const server = (this.server = new ServerProcess(this.port, this.env, this.logFile));
    void server.exited.then((exit) => this.exitedOnItsOwn(server, exit));
    const healthyAt = await waitForHealth(this.baseUrl, this.server);
    this.healthMs.push(healthyAt - this.server.startedAt);
    this.markUp();
    return healthyAt;
  }

  /** It answers: requests may go to it, and whoever waits for a live process wakes. */
  markUp(): void {
    this.up = true;
    this.onUp();
  }

  /**
   * A process on a shared database that finds its beat late while it holds work stops at once with exit 1, for its
   * supervisor to start it again (ADR 044 §7); the others take its teams and runs over meanwhile. The harness is that
   * supervisor. On a loaded machine this happens without any kill, and is not a fault.
   */
  private exitedOnItsOwn(server: ServerProcess, exit: Exit): void {
    if (this.signalled.has(server) || server !== this.server) return;
    this.up = false;
    const own: OwnExit = { process: this.index, exit, at: Date.now(), fenced: exit.code === 1 && server.output.includes(FENCED_STOP) };
    this.ownExits.push(own);
    if (!own.fenced) return;
    this.supervising = this.start().then(
      () => void (own.restartedAt = this.server.startedAt),
      (error: unknown) => void (own.restartError = error instanceof Error ? error.message : String(error)),
    );
    void this.supervising.then(() => (this.supervising = null));
  }

  /** SIGKILL; the caller restarts it (start()). */
  async kill(): Promise<void> {
    if (this.supervising) await this.supervising;
    this.up = false;
    this.signalled.add(this.server);
    const exit = await this.server.kill('SIGKILL');
    if (exit.signal !== 'SIGKILL') throw new Error(`process ${this.index} had already exited (${JSON.stringify(exit)}):\n${this.server.output.slice(-2_000)}`);
    this.kills += 1;
  }

  /** SIGTERM with a bound; null when it did not exit in time (then it is SIGKILLed). */
  async stop(timeoutMs = 30_000): Promise<{ exit: Exit | null; ms: number }> {
    if (this.supervising) await this.supervising;
    this.up = false;
    this.signalled.add(this.server);
    const stoppedAt = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)));
    const exit = await Promise.race([this.server.kill('SIGTERM'), timeout]);
    clearTimeout(timer);
    const ms = Date.now() - stoppedAt;
    if (!exit) await this.server.kill('SIGKILL');
    return { exit, ms };
  }
}

export class Cluster {
  readonly nodes: Node[] = [];
  private waiters: Array<() => void> = [];

  constructor(private readonly random: () => number) {}

  add(port: number, env: NodeJS.ProcessEnv, logFile: string): Node {
    const node = new Node(this.nodes.length, port, env, logFile, () => {
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.nodes.push(node);
    return node;
  }

  live(): Node[] {
    return this.nodes.filter((n) => n.up);
  }

  /** A random live process, waiting while none is. */
  async any(): Promise<Node> {
    for (;;) {
      const live = this.live();
      if (live.length) return live[Math.floor(this.random() * live.length)]!;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Wait until at least `count` processes answer (a process coming up wakes the waiters). */
  async atLeast(count: number): Promise<void> {
    while (this.live().length < count) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  get kills(): number {
    return this.nodes.reduce((n, node) => n + node.kills, 0);
  }
}
