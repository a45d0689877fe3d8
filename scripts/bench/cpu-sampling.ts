import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type pg from 'pg';

/**
 * CPU the benchmark's workers do not see in their own process.cpuUsage(): the Postgres backends serving the
 * benchmark's database, and the whole machine (to tell how loaded it was). Linux /proc only; elsewhere the figures
 * are absent rather than wrong.
 */

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** A process's user + system CPU in ms, or undefined once it is gone. */
function processCpuMs(pid: number): number | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name may contain spaces and parentheses: the fields start after its last ')'. utime and stime are
  // fields 14 and 15 of the line, i.e. 12th and 13th after the name.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1000;
}

/**
 * The CPU of one database's backends over a run. Sampled repeatedly (a backend that exits between samples loses
 * only what it used since the last one); a backend first seen after start() counts from zero (it connected during
 * the run). The sampling connection's own backend is left out.
 */
export class BackendCpu {
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private started = false;

  constructor(
    private readonly client: pg.Client,
    private readonly database: string,
  ) {}

  async start(): Promise<void> {
    await this.sample();
    this.started = true;
  }

  async sample(): Promise<void> {
    const { rows } = await this.client.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [this.database],
    );
    for (const { pid } of rows) {
      const ms = processCpuMs(pid);
      if (ms === undefined) continue;
      if (!this.first.has(pid)) this.first.set(pid, this.started ? 0 : ms);
      this.last.set(pid, ms);
    }
  }

  /** CPU used since start(), in ms. */
  totalMs(): number {
    let total = 0;
    for (const [pid, ms] of this.last) total += ms - this.first.get(pid)!;
    return total;
  }
}

/** The machine's busy CPU time (every core, every process) in ms, from /proc/stat; undefined where there is none. */
export function machineBusyMs(): number | undefined {
  let line: string;
  try {
    line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  } catch {
    return undefined;
  }
  // cpu user nice system idle iowait irq softirq steal …: busy is everything but idle and iowait.
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const busy = ticks.reduce((sum, t) => sum + t, 0) - ticks[3]! - ticks[4]!;
  return (busy / TICKS_PER_SECOND) * 1000;
}
