/**
 * The crash test's servers: N `next start` processes on one database, which of them answer, and what the killer did
 * to each. Every request goes to a random live process; a caller waits while none is up.
 */
import { ServerProcess, waitForHealth, type Exit } from './server';

/** One app process slot: restarted in place (same port, env and data directory) after each kill. */
export class Node {
  server!: ServerProcess;
  readonly baseUrl: string;
  up = false;
  kills = 0;
  /** Spawn → healthy, per start. */
  readonly healthMs: number[] = [];

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
    this.server = new ServerProcess(this.port, this.env, this.logFile);
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

  /** SIGKILL; the caller restarts it (start()). */
  async kill(): Promise<void> {
    this.up = false;
    const exit = await this.server.kill('SIGKILL');
    if (exit.signal !== 'SIGKILL') throw new Error(`process ${this.index} had already exited (${JSON.stringify(exit)}):\n${this.server.output.slice(-2_000)}`);
    this.kills += 1;
  }

  /** SIGTERM with a bound; null when it did not exit in time (then it is SIGKILLed). */
  async stop(timeoutMs = 30_000): Promise<{ exit: Exit | null; ms: number }> {
    this.up = false;
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
