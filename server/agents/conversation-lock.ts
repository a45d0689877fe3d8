import 'server-only';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { ACTIVE_RUN_STATUSES } from '@/lib/types/conversation';
import { schema, type Db } from '@/server/db';
import { preparedPerConnection } from '@/server/db/prepared';
import { AppError } from '@/server/http/errors';

/** Another run is pending or running on the conversation (one run at a time). */
export class ConversationBusyError extends AppError {
  constructor() {
    super(409, 'conversation_busy', 'This conversation is busy with another run; wait for it to finish or cancel it');
    this.name = 'ConversationBusyError';
  }
}

/**
 * A conversation's lock is its one active run row (pending or running). Whoever writes to the conversation's
 * LangGraph thread — a run of its agent, a resume, a framework note (thread-notes.ts) — checks for that row and
 * inserts its own inside one writeTx (serializable on both engines: SQLite's single writer, Postgres's
 * SERIALIZABLE), so two writers can never both pass the check, and the lock survives a crash: start-up recovery
 * finishes the row before anything else may write to the thread.
 * The team scheduler reads the same rows (a conversation with an active run admits no job).
 */
// Asked twice per run (its start and its checkpointer): prepared once per connection (server/db/prepared.ts).
const activeRunOf = preparedPerConnection((db) =>
  db
    .select({ id: schema.runs.id })
    .from(schema.runs)
    .where(and(eq(schema.runs.conversationId, sql.placeholder('conversationId')), inArray(schema.runs.status, [...ACTIVE_RUN_STATUSES])))
    .limit(1)
    .prepare(),
);

/** Whether the conversation has a pending or running run (it is locked). */
export async function conversationHasActiveRun(tx: Db, conversationId: string): Promise<boolean> {
  return (await activeRunOf(tx).execute({ conversationId }))[0] !== undefined;
}

export async function assertConversationIdle(tx: Db, conversationId: string): Promise<void> {
  if (await conversationHasActiveRun(tx, conversationId)) throw new ConversationBusyError();
}
