import 'server-only';
import { and, eq, inArray, isNotNull, or } from 'drizzle-orm';
import { ACTIVE_RUN_STATUSES } from '@/lib/types/conversation';
import { schema, writeTx, type Db } from '@/server/db';
import { UNFINISHED_JOB_STATUSES } from '@/server/db/schema';
import { AppError, notFound } from '@/server/http/errors';
import { getCheckpointer } from './checkpointer';
import { batchOfConversation } from './conversations';

/**
 * Deleting a conversation (ADR 050). The conversation goes with every hidden conversation its runs delegated to,
 * and theirs, transitively: their runs, delegation rows and (after the commit) their threads — checkpoints,
 * messages, run events with their receipts, compactions. One write transaction decides; it only reads and deletes
 * by ids it computes itself, so running its body twice (a Postgres serialization retry) does the same thing.
 */

export const BUSY_REFUSAL = 'This conversation has a run in progress; stop the run first, then delete the conversation';
export const TEAM_REQUEST_REFUSAL = 'A team request sent from this conversation is unfinished; cancel it or let it finish first';

const conversationBusy = (message: string) => new AppError(409, 'conversation_busy', message);

/** What a delete removed: the conversation asked for and the hidden ones that went with it. */
export type DeletedConversations = { id: string; hidden: string[] };

export async function deleteConversation(ownerId: string, conversationId: string): Promise<DeletedConversations> {
  const deleted = await writeTx(async (tx) => {
    const [root] = await tx.select().from(schema.conversations).where(eq(schema.conversations.id, conversationId));
    // Another owner's id answers like a missing one (and a second delete finds nothing).
    if (!root || root.ownerId !== ownerId) throw notFound('Conversation');
    if (root.parentRunId !== null) {
      const batch = batchOfConversation(root);
      throw new AppError(
        409,
        'delegated_conversation',
        batch
          ? `This conversation runs an item of batch ${batch.id}; it is part of the batch's record and can't be deleted on its own`
          : 'This conversation belongs to a delegated task; it is deleted with the conversation that delegated it',
      );
    }
    await refuseTeamMember(tx, conversationId);
    const ids = [conversationId, ...(await hiddenDescendants(tx, ownerId, conversationId))];
    await refuseWhileBusy(tx, ids);

    // The team's record keeps a finished request sent from this chat, but no longer points at it: a retry of that
    // request then returns its result nowhere instead of to a conversation that is gone (teams/execution.ts writeReceipt).
    await tx.update(schema.jobs).set({ sourceConversationId: null }).where(inArray(schema.jobs.sourceConversationId, ids));
    await tx.update(schema.stateEntries).set({ sourceConversationId: null }).where(inArray(schema.stateEntries.sourceConversationId, ids));
    await tx
      .delete(schema.delegations)
      .where(or(inArray(schema.delegations.parentConversationId, ids), inArray(schema.delegations.childConversationId, ids)));
    await tx.delete(schema.runs).where(inArray(schema.runs.conversationId, ids));
    await tx.delete(schema.conversations).where(and(inArray(schema.conversations.id, ids), eq(schema.conversations.ownerId, ownerId)));
    return { id: conversationId, hidden: ids.slice(1) };
  });
  // The threads live beside the app's tables (SQLite: checkpoints.db, another file), so they go once the rows are
  // committed, before the caller is answered. Every read of a thread goes through its owner-checked conversation
  // row, so a crash in between leaves only rows nothing reaches (space, not data anyone sees; ADR 050).
  await deleteThreads([deleted.id, ...deleted.hidden]);
  return deleted;
}

/** A team member's conversation is part of its team: refused, naming the team. */
async function refuseTeamMember(tx: Db, conversationId: string): Promise<void> {
  const [team] = await tx
    .select({ name: schema.teams.name })
    .from(schema.teamMembers)
    .innerJoin(schema.teams, eq(schema.teams.id, schema.teamMembers.teamId))
    .where(eq(schema.teamMembers.conversationId, conversationId))
    .limit(1);
  if (team) {
    throw new AppError(
      409,
      'conversation_in_team',
      `This conversation is a member of the team “${team.name}”; delete the team first (its member conversations stay, and can then be deleted)`,
    );
  }
}

/**
 * Every hidden conversation below `rootId`: a child's conversation names the run that delegated it
 * (conversations.parent_run_id), and that run names its conversation. The owner's hidden conversations are read once
 * (they count in the quota, so there are at most that many), then walked from the root.
 */
async function hiddenDescendants(tx: Db, ownerId: string, rootId: string): Promise<string[]> {
  const hidden = await tx
    .select({ id: schema.conversations.id, parent: schema.runs.conversationId })
    .from(schema.conversations)
    .innerJoin(schema.runs, eq(schema.runs.id, schema.conversations.parentRunId))
    .where(and(eq(schema.conversations.ownerId, ownerId), isNotNull(schema.conversations.parentRunId)));
  const children = new Map<string, string[]>();
  for (const row of hidden) children.set(row.parent, [...(children.get(row.parent) ?? []), row.id]);
  const found: string[] = [];
  const seen = new Set([rootId]);
  for (let frontier = [rootId]; frontier.length; ) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const child of children.get(id) ?? []) {
        if (seen.has(child)) continue;
        seen.add(child);
        found.push(child);
        next.push(child);
      }
    }
    frontier = next;
  }
  return found;
}

/**
 * Refused while anything in the tree still works: a run pending or running (a parent waiting on its children is
 * running), a child asked for and not finished, or a team request this chat sent (or the receipt returning one)
 * not finished. A run stopped on an approval or a question is not working: deleting it abandons the question.
 */
async function refuseWhileBusy(tx: Db, ids: string[]): Promise<void> {
  const [run] = await tx
    .select({ id: schema.runs.id })
    .from(schema.runs)
    .where(and(inArray(schema.runs.conversationId, ids), inArray(schema.runs.status, [...ACTIVE_RUN_STATUSES])))
    .limit(1);
  const [child] = await tx
    .select({ id: schema.delegations.id })
    .from(schema.delegations)
    .where(and(inArray(schema.delegations.parentConversationId, ids), inArray(schema.delegations.status, ['queued', 'running'])))
    .limit(1);
  if (run || child) throw conversationBusy(BUSY_REFUSAL);
  const [job] = await tx
    .select({ id: schema.jobs.id })
    .from(schema.jobs)
    .where(
      and(
        or(inArray(schema.jobs.conversationId, ids), inArray(schema.jobs.sourceConversationId, ids)),
        inArray(schema.jobs.status, [...UNFINISHED_JOB_STATUSES]),
      ),
    )
    .limit(1);
  if (job) throw conversationBusy(TEAM_REQUEST_REFUSAL);
}

/** Delete the threads of deleted conversations; a failure only leaves rows nothing reaches (logged). */
export async function deleteThreads(ids: readonly string[]): Promise<void> {
  const saver = getCheckpointer();
  for (const id of ids) {
    try {
      await saver.deleteThread(id);
    } catch (err) {
      console.error(`[conversations] could not delete the thread of deleted conversation ${id}`, err);
    }
  }
}
