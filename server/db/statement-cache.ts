import 'server-only';
import type Database from 'better-sqlite3';

/** Compiled statements kept per connection; the least recently used beyond this are dropped (finalized by GC). */
export const CACHED_STATEMENTS = 256;

/**
 * Keep a SQLite connection's compiled statements by their SQL text, so a query built again is compiled once.
 * drizzle's builder queries (and the checkpoint saver's occasional ones) call `prepare` at every run: a job compiled
 * about 23 statements from 181 distinct texts (docs/performance.md). SQLite re-prepares a cached statement itself
 * when the schema changes under it.
 *
 * What a caller can't tell apart from a fresh statement: a statement handed out again starts in the default row
 * mode (drizzle switches statements to raw arrays and never back), and one still busy (an open iterator) is never
 * handed out twice — that call compiles its own. A statement bound for good with `.bind()` would be shared bound:
 * this code base never does that (it is the one thing not to start doing on these connections). A statement held
 * for long (prepared.ts, the checkpoint saver's) keeps its mode only if no one switches it: drizzle switches only its
 * own quoted-identifier texts, and drizzle's prepared queries set their mode at every call; hand-written texts are
 * used in the default mode.
 */
export function cacheStatements(client: Database.Database, limit = CACHED_STATEMENTS): void {
  const compile = client.prepare.bind(client);
  const cache = new Map<string, Database.Statement>();
  client.prepare = ((source: string) => {
    const cached = cache.get(source);
    if (cached && !cached.busy) {
      cache.delete(source);
      cache.set(source, cached);
      if (cached.reader) cached.raw(false).pluck(false).expand(false);
      return cached;
    }
    const statement = compile(source);
    if (!cached) {
      cache.set(source, statement);
      if (cache.size > limit) cache.delete(cache.keys().next().value!);
    }
    return statement;
  }) as Database.Database['prepare'];
}
