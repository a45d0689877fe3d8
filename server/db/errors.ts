import 'server-only';

/**
 * Whether a database error is a unique-constraint violation, on either engine: SQLite's SQLITE_CONSTRAINT_UNIQUE
 * (or PRIMARYKEY), Postgres's 23505 — whether drizzle wrapped the driver's error (as `cause`) or not.
 */
export function isUniqueViolation(error: unknown): boolean {
  return hasCode(error, (code) => code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY');
}

/**
 * A Postgres serialization failure (40001) or deadlock (40P01): writeTx runs its function again for these, so code
 * that catches errors inside a transaction must let them through rather than treat them as the work's own failure.
 */
export function isRetryableConflict(error: unknown): boolean {
  return hasCode(error, (code) => code === '40001' || code === '40P01');
}

function hasCode(error: unknown, match: (code: string) => boolean): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (typeof e.code === 'string' && match(e.code)) return true;
  }
  return false;
}
