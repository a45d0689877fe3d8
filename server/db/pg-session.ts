import 'server-only';
import type pg from 'pg';
import { activeEngine } from './active-engine';

/**
 * A pooled Postgres connection of the caller's own, outside any writeTx and its queue, for the little that must not
 * wait behind the process's writes or must hold a session (the planning lock; server/cluster). Postgres only.
 */
export async function withPgSession<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const engine = activeEngine();
  if (engine.kind !== 'postgres') throw new Error('withPgSession needs DATABASE_URL=postgres://…');
  await engine.ready;
  const client = await engine.pg.pool.connect();
  let broken: Error | undefined;
  // A checked-out client whose connection dies also emits 'error': the query's rejection is what the caller sees.
  const onError = (error: Error) => (broken = error);
  client.on('error', onError);
  try {
    return await fn(client);
  } catch (error) {
    // Whatever the session held (a transaction, a lock) must not reach the next borrower: drop the connection.
    broken ??= error as Error;
    throw error;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
