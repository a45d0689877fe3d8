import 'server-only';
import { inArray } from 'drizzle-orm';
import { getDb, schema } from '@/server/db';
import { pgOrphanThreadIdsPage, sqliteThreadIdsPage } from './checkpoint/thread-ids';
import { readCheckpointStore } from './checkpointer';
import { deleteThreads } from './conversation-delete';

/** Thread ids read (and conversations asked about) per page: the sweep never holds more ids than this. */
const PAGE = 500;

/**
 * Delete the threads whose conversation is gone (ADR 050): a conversation's thread is deleted after its rows commit,
 * so a crash in between leaves thread rows nothing reaches. Start-up runs this; answers how many threads it deleted.
 * It walks the checkpoint side's thread ids in id order, a page at a time, deleting each page's orphans before it
 * reads the next, so its memory and each statement stay bounded however many conversations there are.
 *
 * Safe beside live work, on either engine and with several processes: a thread's thread_id is its conversation's id,
 * and no thread row is written before its conversation row committed (a run, a note or a delegated child's seed
 * needs the committed conversation). So a page's thread ids are read first and their conversations after (on
 * Postgres both in one statement): a thread seen has its conversation visible to the later read unless that
 * conversation was deleted. A thread deleted twice (here and by the delete that left it) is deleted once.
 */
export async function sweepOrphanThreads(pageSize = PAGE): Promise<number> {
  let deleted = 0;
  for (let after = ''; ; ) {
    const found = await readCheckpointStore(
      // Another file than the app's tables: their conversations are read after, below.
      (sqlite) => ({ threadIds: sqliteThreadIdsPage(sqlite, after, pageSize), orphansOnly: false }),
      async (saver) => ({ threadIds: await pgOrphanThreadIdsPage(saver, after, pageSize), orphansOnly: true }),
    );
    const page = { last: found.threadIds.at(-1), full: found.threadIds.length === pageSize };
    const orphans = found.orphansOnly ? found.threadIds : await withoutConversation(found.threadIds);
    if (orphans.length > 0) await deleteThreads(orphans);
    deleted += orphans.length;
    if (!page.full || page.last === undefined) break;
    after = page.last;
  }
  if (deleted > 0) console.log(`[conversations] deleted the threads of ${deleted} deleted conversation(s) left by an interrupted delete`);
  return deleted;
}

/** The ids among these with no conversation row (read after the ids were). */
async function withoutConversation(threadIds: string[]): Promise<string[]> {
  if (threadIds.length === 0) return [];
  const live = await getDb().select({ id: schema.conversations.id }).from(schema.conversations).where(inArray(schema.conversations.id, threadIds));
  const known = new Set(live.map((row) => row.id));
  return threadIds.filter((id) => !known.has(id));
}
