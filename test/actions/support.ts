import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { expect } from 'vitest';
import { getDb } from '@/server/db';

/**
 * Every row of the given tables, to prove a refused action changed nothing. The tests sign in by putting a
 * Bearer token in the mocked next/headers (requireUser() reads those headers the same way for an action), as
 * test/admin/access.test.ts does; next-auth's cookie path is covered by test/auth/actions.test.ts.
 */
export async function rowsOf(...tables: SQLiteTable[]): Promise<string> {
  const rows = [];
  for (const table of tables) rows.push(await getDb().select().from(table));
  return JSON.stringify(rows);
}

/** The answer a missing id (or another owner's) gets from every action. */
export const NOT_FOUND = { ok: false, error: { code: 'not_found', message: expect.stringMatching(/not found$/) } } as const;

/** What a validation refusal looks like: the field named, as the API's 422 body names it. */
export const fieldError = (field: string, message: unknown = expect.any(String)) => ({
  ok: false,
  error: { code: 'validation_error', message: expect.any(String), fields: expect.objectContaining({ [field]: message }) },
});
