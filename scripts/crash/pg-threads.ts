/**
 * Conversation threads read straight from Postgres (ADR 033 §7), independently of the server's saver: the newest
 * checkpoint of the thread (the official saver's `checkpoints` table) names the version of its `messages` channel;
 * that version's blob (`checkpoint_blobs`, the library serde's bytes) is a marker listing message positions as runs
 * ({ ensembleThreadMessages: [[1, 40]] }); each position is one row of `thread_messages` (the serde's JSON).
 */
import type pg from 'pg';
import type { BaseMessage } from '@langchain/core/messages';
import { JsonPlusSerializer } from '@langchain/langgraph-checkpoint';

/** The Postgres schema of the checkpoint tables and thread_messages. */
export const CHECKPOINT_SCHEMA = 'langgraph';
const MARKER_KEY = 'ensembleThreadMessages';

type Queryable = Pick<pg.ClientBase, 'query'>;

export async function hasThreadMessages(db: Queryable, schema = CHECKPOINT_SCHEMA): Promise<boolean> {
  const { rows } = await db.query<{ t: string | null }>('select to_regclass($1) as t', [`"${schema}".thread_messages`]);
  return rows[0]?.t != null;
}

export async function pgThreadMessages(db: Queryable, threadId: string, schema = CHECKPOINT_SCHEMA): Promise<BaseMessage[]> {
  const serde = new JsonPlusSerializer();
  const { rows: checkpoints } = await db.query<{ version: string | null }>(
    `select checkpoint -> 'channel_versions' ->> 'messages' as version from "${schema}".checkpoints
      where thread_id = $1 and checkpoint_ns = '' order by checkpoint_id desc limit 1`,
    [threadId],
  );
  const version = checkpoints[0]?.version;
  if (version == null) return [];
  const { rows: blobs } = await db.query<{ type: string; blob: Buffer | null }>(
    `select type, blob from "${schema}".checkpoint_blobs where thread_id = $1 and checkpoint_ns = '' and channel = 'messages' and version = $2`,
    [threadId, version],
  );
  const blob = blobs[0];
  if (!blob) throw new Error(`thread ${threadId}: its newest checkpoint names messages version ${version}, which is not stored`);
  if (blob.type === 'empty' || !blob.blob) return [];
  const marker = (await serde.loadsTyped(blob.type, blob.blob)) as Record<string, unknown> | null;
  const runs = marker?.[MARKER_KEY] as Array<[number, number]> | undefined;
  if (!Array.isArray(runs)) throw new Error(`thread ${threadId}: the messages channel holds no position marker`);
  const positions = runs.flatMap(([first, last]) => Array.from({ length: last - first + 1 }, (_, k) => first + k));
  const { rows } = await db.query<{ position: number; message: string }>(
    `select position, message::text as message from "${schema}".thread_messages where thread_id = $1 and position = any($2::integer[])`,
    [threadId, positions],
  );
  const byPosition = new Map(rows.map((r) => [r.position, r.message]));
  const out: BaseMessage[] = [];
  for (const p of positions) {
    const text = byPosition.get(p);
    if (text === undefined) throw new Error(`thread ${threadId}: message position ${p} is listed but not stored`);
    out.push((await serde.loadsTyped('json', text)) as BaseMessage);
  }
  return out;
}
