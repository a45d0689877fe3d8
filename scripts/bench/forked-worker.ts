import { fork, type ChildProcess } from 'node:child_process';
import type { FromWorker, ToWorker } from './processes-protocol';

type Waiter = { type: FromWorker['type']; resolve: (message: FromWorker) => void; reject: (error: Error) => void; timer: NodeJS.Timeout };

/**
 * A worker process of the benchmark (scripts/bench/processes-worker.ts) under tsx with the react-server condition
 * (so 'server-only' resolves to its empty build), as `tsx --conditions=react-server` would start it but with
 * node's own IPC channel. `next(type)` waits for the worker's next message of that type; a worker that exits first
 * fails the wait with its exit code instead of hanging the benchmark.
 */
export class ForkedWorker {
  readonly child: ChildProcess;
  private readonly inbox: FromWorker[] = [];
  private readonly waiters: Waiter[] = [];
  private exitCode: number | null | undefined;
  readonly exited: Promise<number | null>;

  constructor(file: string, env: NodeJS.ProcessEnv) {
    this.child = fork(file, [], { execArgv: ['--conditions=react-server', '--import', 'tsx'], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    // A send racing the worker's exit: the exit is what the benchmark reports, not the closed channel.
    this.child.on('error', (error) => console.error(`[bench] worker ${this.child.pid}: ${error.message}`));
    this.child.on('message', (message: FromWorker) => {
      const index = this.waiters.findIndex((w) => w.type === message.type);
      if (index < 0) return void this.inbox.push(message);
      const [waiter] = this.waiters.splice(index, 1);
      clearTimeout(waiter!.timer);
      waiter!.resolve(message);
    });
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? -1 : 0);
        for (const waiter of this.waiters.splice(0)) {
          clearTimeout(waiter.timer);
          waiter.reject(new Error(`worker ${this.child.pid} exited (${signal ?? code}) before '${waiter.type}'`));
        }
        resolve(code);
      }),
    );
  }

  /** Whether the worker is still running (a fenced worker exits on its own). */
  get alive(): boolean {
    return this.exitCode === undefined && this.child.connected;
  }

  send(message: ToWorker): void {
    if (this.alive) this.child.send(message);
  }

  next<T extends FromWorker['type']>(type: T, timeoutMs: number): Promise<Extract<FromWorker, { type: T }>> {
    const index = this.inbox.findIndex((m) => m.type === type);
    if (index >= 0) return Promise.resolve(this.inbox.splice(index, 1)[0] as Extract<FromWorker, { type: T }>);
    if (this.exitCode !== undefined) return Promise.reject(new Error(`worker ${this.child.pid} has exited (${this.exitCode})`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error(`worker ${this.child.pid}: no '${type}' within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter: Waiter = { type, resolve: resolve as (message: FromWorker) => void, reject, timer };
      this.waiters.push(waiter);
    });
  }

  /** Wait for the exit; a worker still running after graceMs is killed (it is this benchmark's own child). */
  async end(graceMs: number): Promise<number | null> {
    if (this.exitCode !== undefined) return this.exitCode;
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
