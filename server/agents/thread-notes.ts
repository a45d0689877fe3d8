import 'server-only';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '@/server/db';
import { buildAgentGraph } from './graph';
import { ScriptedChatModel } from './scripted-model';
import { readThread, threadConfig } from './thread';

type Exchange = {
  /** Deterministic id prefix: appending the same exchange twice is a no-op. */
  key: string;
  text: string;
  meta: Record<string, unknown>;
  note: string;
};

/**
 * Record a person's message and a short framework note in a conversation without running its agent (e.g.
 * "@mentions queued requests"). The note is an assistant-side message marked as a framework note, so later
 * turns see the exchange in order. The caller makes sure no run is active on the conversation.
 */
export async function appendExchange(conversationId: string, exchange: Exchange): Promise<void> {
  const humanId = `note:${exchange.key}:human`;
  const { messages } = await readThread(conversationId);
  if (messages.some((m) => m.id === humanId)) return;
  const db = getDb();
  const conversation = db.select().from(schema.conversations).where(eq(schema.conversations.id, conversationId)).get();
  const agent = conversation?.agentId ? db.select().from(schema.agents).where(eq(schema.agents.id, conversation.agentId)).get() : undefined;
  if (!conversation || !agent) return;
  const context = { ownerId: conversation.ownerId, conversationId, runId: `note:${exchange.key}`, agentId: agent.id };
  const graph = await buildAgentGraph(agent, context, { model: new ScriptedChatModel({ agentName: agent.name }) });
  await graph.updateState(
    threadConfig(conversationId),
    {
      messages: [
        new HumanMessage({ id: humanId, content: exchange.text, additional_kwargs: { ensemble: { ...exchange.meta, taskText: exchange.text, author: 'person' } } }),
        new AIMessage({ id: `note:${exchange.key}:note`, content: exchange.note, additional_kwargs: { ensemble: { kind: 'framework_note' } } }),
      ],
    },
    'model',
  );
  db.update(schema.conversations).set({ updatedAt: new Date() }).where(eq(schema.conversations.id, conversationId)).run();
}
