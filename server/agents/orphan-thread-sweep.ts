import 'server-only';
import { inArray } from 'drizzle-orm';
import { getDb, schema } from '@/server/db';
import { pgThreadIdsWithoutConversation, sqliteThreadIds } from './checkpoint/thread-ids';
import { readCheckpointStore } from './checkpointer';
import { deleteThreads } from './conversation-delete';

/** Conversation ids asked about per statement. */
const BATCH = 500;

/**
 * Delete the threads whose conversation is gone (ADR 050): a conversation's thread is deleted after its rows commit,
 * so a crash in between leaves thread rows nothing reaches. Start-up runs this; answers how many threads it deleted.
 *
 * Safe beside live work, on either engine and with several processes: a thread's thread_id is its conversation's id,
 * and no thread row is written before its conversation row committed (a run, a note or a delegated child's seed
 * needs the committed conversation). So the thread ids are read first and the conversations after: a thread seen
 * has its conversation visible to the later read unless that conversation was deleted. A thread deleted twice (here
 * and by the delete that left it) is deleted once.
 */
export async function sweepOrphanThreads(): Promise<number> {
  const found = await readCheckpointStore(
    // Another file than the app's tables: their conversations are read after, below.
    (sqlite) => ({ threadIds: sqliteThreadIds(sqlite), orphansOnly: false }),
    async (saver) => ({ threadIds: await pgThreadIdsWithoutConversation(saver), orphansOnly: true }),
  );
  const orphans = found.orphansOnly ? found.threadIds : await withoutConversation(found.threadIds);
  if (orphans.length > 0) {
    await deleteThreads(orphans);
    console.log(`[conversations] deleted the threads of ${orphans.length} deleted conversation(s) left by an interrupted delete`);
  }
  return orphans.length;
}

/** The ids among these with no conversation row (read after the ids were). */
async function withoutConversation(threadIds: string[]): Promise<string[]> {
  const orphans: string[] = [];
  for (let i = 0; i < threadIds.length; i += BATCH) {
    const batch = threadIds.slice(i, i + BATCH);
    const live = await getDb().select({ id: schema.conversations.id }).from(schema.conversations).where(inArray(schema.conversations.id, batch));
    const known = new Set(live.map((row) => row.id));
    orphans.push(...batch.filter((id) => !known.has(id)));
  }
  return orphans;
}
