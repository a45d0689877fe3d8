import 'server-only';
import { MESSAGES_CHANNEL, markerRuns, type PgThreadSaver } from './pg-saver';
import { gaps, type PruneResult } from './prune';
import { fromRuns, toRuns } from './ranges';

export type PgPruneResult = PruneResult & { blobs: number };

/**
 * Postgres's pruneThread (prune.ts; ADR 013): keep a settled thread's newest root checkpoint with its pending writes,
 * the blobs the remaining checkpoints name and the message rows their markers name; delete the rest. The public
 * saver API cannot delete one checkpoint, so this is SQL on the library's tables (checkpoints, checkpoint_blobs,
 * checkpoint_writes: layout pinned by test-pg/checkpoint-app.test.ts).
 *
 * Safe beside a run that starts meanwhile: a blob goes only when no committed checkpoint names it (the library
 * commits a checkpoint with its blobs), and a message row only when it lies below the highest position a remaining
 * checkpoint names (a new put's rows are numbered above every committed one, under the same thread lock).
 */
export async function prunePgThread(saver: PgThreadSaver, threadId: string): Promise<PgPruneResult> {
  await saver.ready();
  const s = `"${saver.schema}"`;
  const result = await saver.transaction(async (client): Promise<PgPruneResult> => {
    await saver.lockThread(client, threadId);
    const latest = await client.query<{ id: string }>(
      `SELECT checkpoint_id AS id FROM ${s}.checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`,
      [threadId],
    );
    const id = latest.rows[0]?.id;
    if (id === undefined) return { checkpoints: 0, writes: 0, messages: 0, blobs: 0 };
    const checkpoints = await client.query(`DELETE FROM ${s}.checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' AND checkpoint_id < $2`, [threadId, id]);
    const writes = await client.query(`DELETE FROM ${s}.checkpoint_writes WHERE thread_id = $1 AND checkpoint_ns = '' AND checkpoint_id < $2`, [threadId, id]);
    const blobs = await client.query(
      `DELETE FROM ${s}.checkpoint_blobs b WHERE b.thread_id = $1 AND b.checkpoint_ns = '' AND NOT EXISTS (
         SELECT 1 FROM ${s}.checkpoints c
         WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version)`,
      [threadId],
    );
    // The message lists every remaining checkpoint of the thread (any namespace: positions are per thread) names.
    const lists = await client.query<{ type: string; blob: Buffer | null }>(
      `SELECT DISTINCT b.type, b.blob FROM ${s}.checkpoints c JOIN ${s}.checkpoint_blobs b
         ON b.thread_id = c.thread_id AND b.checkpoint_ns = c.checkpoint_ns AND b.channel = $2 AND b.version = c.checkpoint -> 'channel_versions' ->> $2
       WHERE c.thread_id = $1 AND b.type <> 'empty'`,
      [threadId, MESSAGES_CHANNEL],
    );
    const kept = new Set<number>();
    for (const row of lists.rows) {
      const runs = markerRuns(await saver.serde.loadsTyped(row.type, row.blob ?? ''));
      // A list stored whole (not by this wrapper): its messages are not rows; the rows can't be judged, keep them.
      if (!runs) return { checkpoints: checkpoints.rowCount ?? 0, writes: writes.rowCount ?? 0, messages: 0, blobs: blobs.rowCount ?? 0 };
      for (const p of fromRuns(runs)) kept.add(p);
    }
    const named = [...kept].sort((a, b) => a - b);
    const drop = gaps(toRuns(named), named.at(-1) ?? 0);
    const messages = drop.length
      ? await client.query(
          `DELETE FROM ${s}.thread_messages m USING unnest($2::integer[], $3::integer[]) AS r(first, last)
           WHERE m.thread_id = $1 AND m.position BETWEEN r.first AND r.last`,
          [threadId, drop.map((r) => r[0]), drop.map((r) => r[1])],
        )
      : undefined;
    return { checkpoints: checkpoints.rowCount ?? 0, writes: writes.rowCount ?? 0, messages: messages?.rowCount ?? 0, blobs: blobs.rowCount ?? 0 };
  });
  if (result.messages) saver.forget(threadId);
  return result;
}
