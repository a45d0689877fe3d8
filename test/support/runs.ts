import crypto from 'node:crypto';
import { schema, writeTx } from '@/server/db';
import type { Run } from '@/server/db/schema';

type NewRun = typeof schema.runs.$inferInsert;

/**
 * A run row written straight into the database, as a crash, a takeover or a finished run leaves it, without
 * executing anything: a `pending` start run of the scripted model under a fresh idempotency key unless `values` says
 * otherwise. The row is returned as stored.
 */
export async function insertRun(values: Pick<NewRun, 'ownerId' | 'conversationId'> & Partial<NewRun>): Promise<Run> {
  const [row] = await writeTx((tx) =>
    tx
      .insert(schema.runs)
      .values({ id: crypto.randomUUID(), idempotencyKey: crypto.randomUUID(), kind: 'start', status: 'pending', model: 'scripted', input: { text: 'x' }, ...values })
      .returning(),
  );
  return row!;
}
