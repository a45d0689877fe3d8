import 'server-only';
import pg from 'pg';

/**
 * One scheduling process per Postgres database, until team leases and the shared planner (ADR 033 §4–5) let
 * several share it: a session advisory lock, held on a connection of its own for the process's life. Postgres drops
 * it when that connection ends — the process exits, is SIGKILLed, or loses the server — so it never outlives its
 * holder. A process that loses the connection can no longer prove it is alone, so it stops (the next start
 * recovers its runs), rather than go on beside a second process that may have taken over.
 */
export class PgServiceLockError extends Error {
  constructor(readonly database: string) {
    super(
      `Another Ensemble server is using the database ${database}: several app processes on one Postgres database are not supported yet ` +
        '(docs/decisions/033-postgres-and-several-processes.md). Stop that server first, or point DATABASE_URL at another database.',
    );
    this.name = 'PgServiceLockError';
  }
}

const LOCK_KEY = "hashtext('ensemble:service')";

/** The URL without its password, for messages and logs. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(an unparsable DATABASE_URL)';
  }
}

export type PgServiceLock = { release: () => Promise<void> };

export async function acquirePgServiceLock(url: string, onLost: (error: Error) => void): Promise<PgServiceLock> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let releasing = false;
  try {
    const { rows } = await client.query<{ ok: boolean }>(`select pg_try_advisory_lock(${LOCK_KEY}) as ok`);
    if (!rows[0]?.ok) throw new PgServiceLockError(shownUrl(url));
  } catch (error) {
    await client.end();
    throw error;
  }
  const lost = (error?: Error) => {
    if (!releasing) onLost(error ?? new Error('the connection holding the service lock ended'));
  };
  client.on('error', lost);
  client.on('end', () => lost());
  return {
    release: async () => {
      releasing = true;
      await client.end();
    },
  };
}
