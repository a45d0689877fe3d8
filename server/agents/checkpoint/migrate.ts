import 'server-only';
import type Database from 'better-sqlite3';
import { toRuns } from './ranges';
import { createCheckpointTables, hasLibraryTables } from './schema';
import { MESSAGES_CHANNEL } from './saver';

export type MigrationReport = { threads: number; checkpoints: number; writes: number; messages: number };

type LibraryRow = {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  type: string | null;
  checkpoint: Buffer;
  metadata: Buffer;
};

/**
 * Convert the tables of @langchain/langgraph-checkpoint-sqlite (every checkpoint holding the whole message list)
 * into this saver's tables, in one transaction, then drop them and VACUUM once to give their space back and switch
 * the file to incremental auto-vacuum. Every checkpoint and pending write is kept, so an interrupted or unfinished
 * run continues where it stopped; pruning later trims what settles.
 *
 * The library stores JSON (type "json"), so messages are compared as JSON text: one row per distinct message
 * per thread, no LangChain objects revived. Returns null when there is nothing to migrate.
 */
export function migrateLibraryTables(db: Database.Database): MigrationReport | null {
  if (!hasLibraryTables(db)) return null;
  createCheckpointTables(db);
  const report: MigrationReport = { threads: 0, checkpoints: 0, writes: 0, messages: 0 };
  db.transaction(() => {
    const exists = (name: string) => !!db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name);
    if (exists('checkpoints')) {
      const threads = db.prepare(`SELECT DISTINCT thread_id, checkpoint_ns FROM checkpoints`).all() as Array<{ thread_id: string; checkpoint_ns: string }>;
      // One row in memory at a time: an old long thread's rows each hold its whole history.
      const idsOf = db.prepare(`SELECT checkpoint_id AS id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id`).pluck();
      const rowOf = db.prepare(`SELECT * FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`);
      const insertMessage = db.prepare(`INSERT INTO thread_messages (thread_id, checkpoint_ns, position, message_id, type, value) VALUES (?, ?, ?, ?, 'json', ?)`);
      const insertCheckpoint = db.prepare(
        `INSERT OR REPLACE INTO thread_checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata, messages) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const { thread_id: threadId, checkpoint_ns: ns } of threads) {
        report.threads++;
        const positionOf = new Map<string, number>();
        for (const checkpointId of idsOf.all(threadId, ns) as string[]) {
          const row = rowOf.get(threadId, ns, checkpointId) as LibraryRow;
          const type = row.type ?? 'json';
          if (type !== 'json') throw new Error(`Cannot migrate checkpoint ${row.checkpoint_id}: stored as "${type}", not JSON`);
          const checkpoint = JSON.parse(row.checkpoint.toString('utf8')) as { channel_values?: Record<string, unknown> };
          const list = checkpoint.channel_values?.[MESSAGES_CHANNEL];
          let runs: string | null = null;
          if (Array.isArray(list)) {
            const positions = list.map((message) => {
              const text = JSON.stringify(message);
              let position = positionOf.get(text);
              if (position === undefined) {
                position = positionOf.size + 1;
                positionOf.set(text, position);
                const id = (message as { kwargs?: { id?: unknown } } | null)?.kwargs?.id;
                insertMessage.run(threadId, ns, position, typeof id === 'string' ? id : null, Buffer.from(text, 'utf8'));
                report.messages++;
              }
              return position;
            });
            delete checkpoint.channel_values![MESSAGES_CHANNEL];
            runs = JSON.stringify(toRuns(positions));
          }
          insertCheckpoint.run(threadId, ns, row.checkpoint_id, row.parent_checkpoint_id, 'json', Buffer.from(JSON.stringify(checkpoint), 'utf8'), row.metadata, runs);
          report.checkpoints++;
        }
      }
      db.exec(`DROP TABLE checkpoints`);
    }
    if (exists('writes')) {
      report.writes = db
        .prepare(
          `INSERT OR REPLACE INTO thread_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, value)
           SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, '', idx, channel, coalesce(type, 'json'), value FROM writes`,
        )
        .run().changes;
      db.exec(`DROP TABLE writes`);
    }
  })();
  // Outside the transaction: the only full rewrite of the file, once, at the first start after the upgrade.
  db.pragma('auto_vacuum = INCREMENTAL');
  db.exec('VACUUM');
  return report;
}
