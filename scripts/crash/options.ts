/**
 * The crash test's command line: `--processes N` and `--db sqlite|postgres` (npm passes what follows `--`), with
 * CRASH_PROCESSES and CRASH_DB as fallbacks. A flag given twice takes the last value, as most CLIs do.
 */

export type Engine = 'sqlite' | 'postgres';
export type CrashOptions = { processes: number; db: Engine };

/** Several processes share one database only on Postgres (SQLite's service lock is per data directory). */
export const MAX_PROCESSES = 8;

export function parseOptions(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): CrashOptions {
  let processes = env.CRASH_PROCESSES;
  let db = env.CRASH_DB;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split('=', 2) as [string, string | undefined];
    if (flag !== '--processes' && flag !== '--db') throw new Error(`unknown argument ${argv[i]} (use --processes N and --db sqlite|postgres)`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--processes') processes = value;
    else db = value;
  }
  const count = processes === undefined ? 1 : Number(processes);
  if (!Number.isInteger(count) || count < 1 || count > MAX_PROCESSES) throw new Error(`--processes must be a whole number from 1 to ${MAX_PROCESSES}; got ${processes}`);
  const engine = db ?? 'sqlite';
  if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`--db must be sqlite or postgres; got ${engine}`);
  if (engine === 'sqlite' && count > 1) throw new Error('--processes above 1 needs --db postgres: on SQLite each process would have a database of its own');
  return { processes: count, db: engine };
}
