import 'server-only';
import crypto from 'node:crypto';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { and, eq, inArray } from 'drizzle-orm';
import { ACTIVE_RUN_STATUSES } from '@/lib/types/conversation';
import { getDb, schema, type Db } from '@/server/db';
import type { Conversation, Run } from '@/server/db/schema';
import { currentCluster } from '@/server/cluster/cluster';
import { conflict } from '@/server/http/errors';
import { assertConversationIdle } from './conversation-lock';
import { buildAgentGraph } from './graph';
import { activeRuns, runsSuspended } from './run-events';
import { frameworkNote } from './provenance';
import { findRun, finishRun, isFinished } from './run-store';
import { ScriptedChatModel } from './scripted-model';
import { readThread, threadConfig } from './thread';

/**
 * A framework note: a person's message and a short note recorded in a conversation without running its agent
 * (e.g. "@mentions queued requests"). The note is an assistant-side message marked as a framework note, so
 * later turns see the exchange in order.
 */
export type Exchange = {
  /** Deterministic id prefix: appending the same exchange twice is a no-op. */
  key: string;
  text: string;
  meta: Record<string, unknown>;
  note: string;
};

const noteRunKey = (exchange: Pick<Exchange, 'key'>) => `note:${exchange.key}`;
const humanIdOf = (exchange: Pick<Exchange, 'key'>) => `note:${exchange.key}:human`;

/**
 * Record a note durably inside the caller's transaction, as a run row of kind 'note' holding the exchange:
 * it takes the conversation's lock (conversation-lock.ts), so no run starts and no other note is appended
 * until applyNote() has written it to the thread — or start-up recovery has, after a crash. Same key → the
 * existing row (whatever its status), so a resend never records twice. The caller checked ownership.
 */
export async function recordNote(tx: Db, conversation: Conversation, exchange: Exchange): Promise<{ run: Run; created: boolean }> {
  const key = noteRunKey(exchange);
  const [existing] = await tx
    .select()
    .from(schema.runs)
    .where(and(eq(schema.runs.conversationId, conversation.id), eq(schema.runs.idempotencyKey, key)))
    .limit(1);
  if (existing) return { run: existing, created: false };
  await assertConversationIdle(tx, conversation.id);
  const [agent] = conversation.agentId
    ? await tx.select({ model: schema.agents.model }).from(schema.agents).where(eq(schema.agents.id, conversation.agentId))
    : [];
  // The thread can only be written through the agent's graph; without the agent there is no thread to add to.
  if (!agent) throw conflict('agent_deleted', 'The agent of this conversation was deleted; start a new conversation');
  const [run] = await tx
    .insert(schema.runs)
    .values({
      id: crypto.randomUUID(),
      conversationId: conversation.id,
      ownerId: conversation.ownerId,
      idempotencyKey: key,
      kind: 'note',
      status: 'pending',
      model: agent.model,
      input: exchange,
      processId: currentCluster().processId,
    })
    .returning();
  await tx.update(schema.conversations).set({ updatedAt: run!.createdAt }).where(eq(schema.conversations.id, conversation.id));
  return { run: run!, created: true };
}

/**
 * Append a recorded note to its thread (exactly once: the messages have deterministic ids) and release the
 * conversation's lock by finishing the row. Registered with the executing runs, so a second call — a resend,
 * a cancel, a shutdown — waits for this one instead of writing beside it. During shutdown nothing starts:
 * the row stays pending and the next start's recoverNotes() appends it.
 */
export function applyNote(runId: string): Promise<void> {
  const active = activeRuns();
  const running = active.get(runId);
  if (running) return running.promise;
  if (runsSuspended()) return Promise.resolve();
  // The append is a single checkpoint write and is not abortable; a cancel or shutdown waits for it.
  const controller = new AbortController();
  const promise = appendAndFinish(runId).finally(() => active.delete(runId));
  active.set(runId, { controller, promise });
  return promise;
}

async function appendAndFinish(runId: string): Promise<void> {
  const run = await findRun(runId);
  if (!run || run.kind !== 'note' || isFinished(run.status)) return;
  try {
    await appendExchange(run.conversationId, run.input as Exchange);
    await finishRun(runId, { status: 'success' });
  } catch (err) {
    // Release the conversation rather than leave it busy; the person sees the error and can resend.
    await finishRun(runId, { status: 'error', error: err instanceof Error ? err.message.slice(0, 2_000) : String(err) });
    throw err;
  }
}

export type NoteRecoveryReport = { runId: string; status: string }[];

/**
 * Start-up: finish every note a previous process recorded but did not finish (crashed before or after the
 * append; the append is idempotent, so the message ends up in the thread exactly once). Runs before the run
 * recovery and the scheduler, so nothing else writes to those threads first.
 */
export async function recoverNotes(): Promise<NoteRecoveryReport> {
  const pending = await getDb()
    .select({ id: schema.runs.id })
    .from(schema.runs)
    .where(and(eq(schema.runs.kind, 'note'), inArray(schema.runs.status, [...ACTIVE_RUN_STATUSES])))
    .orderBy(schema.runs.createdAt);
  const report: NoteRecoveryReport = [];
  for (const { id } of pending) {
    await applyNote(id).catch((err) => console.error(`[notes] could not append note ${id}`, err));
    report.push({ runId: id, status: (await findRun(id))?.status ?? 'missing' });
  }
  return report;
}

/**
 * Write the exchange into the conversation's thread (a no-op when it is already there). Only called while the
 * note's run row holds the conversation's lock.
 */
async function appendExchange(conversationId: string, exchange: Exchange): Promise<void> {
  const humanId = humanIdOf(exchange);
  const { messages } = await readThread(conversationId);
  if (messages.some((m) => m.id === humanId)) return;
  const db = getDb();
  const [conversation] = await db.select().from(schema.conversations).where(eq(schema.conversations.id, conversationId));
  const [agent] = conversation?.agentId ? await db.select().from(schema.agents).where(eq(schema.agents.id, conversation.agentId)) : [];
  if (!conversation || !agent) throw new Error('The agent of this conversation was deleted');
  const context = { ownerId: conversation.ownerId, conversationId, runId: noteRunKey(exchange), agentId: agent.id };
  const graph = await buildAgentGraph(agent, context, { model: new ScriptedChatModel({ agentName: agent.name }) });
  await graph.updateState(
    threadConfig(conversationId),
    {
      messages: [
        new HumanMessage({ id: humanId, content: exchange.text, additional_kwargs: { ensemble: { ...exchange.meta, taskText: exchange.text } } }),
        new AIMessage({ id: `note:${exchange.key}:note`, content: exchange.note, additional_kwargs: { ensemble: { kind: 'framework_note', provenance: frameworkNote() } } }),
      ],
    },
    'model',
  );
}
