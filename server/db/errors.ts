/**
 * Whether a database error is a unique-constraint violation, on either engine: SQLite's SQLITE_CONSTRAINT_UNIQUE
 * (or PRIMARYKEY), Postgres's 23505 — whether drizzle wrapped the driver's error (as `cause`) or not.
 */
export function isUniqueViolation(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return true;
  }
  return false;
}
