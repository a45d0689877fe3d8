import 'server-only';
import type Database from 'better-sqlite3';
import type pg from 'pg';

/**
 * The one place text is repaired on its way into the database (ADR 046): every string bound as a statement
 * parameter, on every connection of both engines, whoever built the statement (drizzle's builder, its prepared
 * queries, `statement()`'s hand-written texts). People's text was refused before it got here (lib/text-bounds);
 * what arrives with a NUL or a lone surrogate is a model's, a tool's or an error's, and it is kept, repaired:
 * - U+0000 and each unpaired surrogate become U+FFFD (Postgres `text` refuses NUL; a lone surrogate has no UTF-8);
 * - in a parameter that is a JSON object or array, the escapes `\u0000` and of a lone surrogate become `\ufffd`
 *   (Postgres `json` keeps them as written, but `->>` on the column then fails for every key of that row).
 * Both engines store the same text, so a test on SQLite sees what Postgres keeps.
 */

const REPLACEMENT = '\uFFFD';

/** A string as it is stored: NUL and lone surrogates replaced by U+FFFD; unchanged (the same string) otherwise. */
export function storedText(text: string): string {
  const wellFormed = text.isWellFormed() ? text : text.toWellFormed();
  return wellFormed.includes('\0') ? wellFormed.replaceAll('\0', REPLACEMENT) : wellFormed;
}

// An escape preceded by an even run of backslashes is an escape (after an odd one it is the text "\u0000"): NUL, a
// high surrogate not followed by a low one, a low one not preceded by a high one.
const BAD_ESCAPE = /(?<!\\)((?:\\\\)*)(?:\\u0000|\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f][0-9a-f]{2})|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2})/gi;

/** JSON text with the escapes of NUL and of lone surrogates replaced by `\ufffd`; other text unchanged. */
export function storedJsonText(text: string): string {
  if (!text.includes('\\u')) return text;
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return text;
  if (text.search(BAD_ESCAPE) === -1) return text;
  try {
    JSON.parse(text);
  } catch {
    return text;
  }
  return text.replace(BAD_ESCAPE, (_, backslashes: string) => `${backslashes}\\ufffd`);
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;

/** A parameter as it is bound: strings repaired (arrays of them too); numbers, Dates, Buffers, null unchanged. */
export function storedParam(value: unknown): unknown {
  if (typeof value === 'string') return storedJsonText(storedText(value));
  if (Array.isArray(value)) return value.some((v) => typeof v === 'string' || Array.isArray(v)) ? value.map(storedParam) : value;
  return value;
}

/** pg sends a plain object as its JSON text: repaired as JSON text is. */
const storedPgParam = (value: unknown): unknown => (isPlainObject(value) ? storedJsonText(JSON.stringify(value)) : storedParam(value));

/** better-sqlite3 binds positional values and, for named parameters, one plain object. */
function storedArgs(args: unknown[]): unknown[] {
  return args.map((arg) => {
    if (isPlainObject(arg)) {
      return Object.fromEntries(Object.entries(arg).map(([k, v]) => [k, storedParam(v)]));
    }
    return storedParam(arg);
  });
}

const WRAPPED = Symbol('storedText');
type Marked = Database.Statement & { [WRAPPED]?: true };

/** Every statement this connection prepares binds repaired text (its run/get/all/iterate; raw() returns itself). */
export function repairTextOnSqlite(client: Database.Database): void {
  const prepare = client.prepare.bind(client);
  client.prepare = ((source: string) => {
    const statement = prepare(source) as Marked;
    if (statement[WRAPPED]) return statement;
    for (const method of ['run', 'get', 'all', 'iterate'] as const) {
      const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
      Object.defineProperty(statement, method, { value: (...args: unknown[]) => original(...storedArgs(args)), configurable: true });
    }
    statement[WRAPPED] = true;
    return statement;
  }) as Database.Database['prepare'];
}

type QueryFn = (...args: unknown[]) => unknown;

/**
 * Every query a client of this pool sends binds repaired text: each new client's `query` is wrapped when it
 * connects (the pool's own `query` borrows a client and calls it).
 */
export function repairTextOnPg(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as QueryFn;
    (client as unknown as { query: QueryFn }).query = (config: unknown, values?: unknown, ...rest: unknown[]) => {
      if (Array.isArray(values)) return query(config, values.map(storedPgParam), ...rest);
      if (config && typeof config === 'object' && Array.isArray((config as { values?: unknown }).values) && typeof (config as { submit?: unknown }).submit !== 'function') {
        const c = config as { values: unknown[] };
        return query({ ...c, values: c.values.map(storedPgParam) }, values, ...rest);
      }
      return query(config, values, ...rest);
    };
  });
}
