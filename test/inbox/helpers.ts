import crypto from 'node:crypto';
import { createConversation } from '@/server/agents/conversations';
import { schema, writeTx } from '@/server/db';
import { insertRun } from '../support/runs';
import { makeAgent } from '../agents/helpers';

/**
 * A chat whose newest run stopped on an approval, written straight into the database (no model runs): what a
 * scripted run leaves behind, at a chosen moment. For paging and ordering, where hundreds are needed.
 */
export async function storedApproval(ownerId: string, finishedAt: Date, tool = 'calculator') {
  const agent = await makeAgent(ownerId);
  const conversation = await createConversation(ownerId, agent.id);
  const run = await insertRun({
    ownerId,
    conversationId: conversation.id,
    status: 'interrupted',
    interrupt: { type: 'approval', tool, args: { expression: '6*7' } },
    createdAt: new Date(finishedAt.getTime() - 1),
    finishedAt,
  });
  return { agent, conversation, run };
}

/** Many stored approvals one millisecond apart, in one transaction per item (as the runs were written). */
export async function storedApprovals(ownerId: string, count: number, from = new Date('2026-01-01T00:00:00Z')) {
  const agent = await makeAgent(ownerId);
  const runs = [];
  for (let i = 0; i < count; i++) {
    const conversation = await createConversation(ownerId, agent.id);
    const finishedAt = new Date(from.getTime() + i);
    runs.push(
      await insertRun({
        ownerId,
        conversationId: conversation.id,
        status: 'interrupted',
        interrupt: { type: 'approval', tool: 'calculator', args: { n: i } },
        createdAt: finishedAt,
        finishedAt,
      }),
    );
  }
  return runs;
}

/** A run that answered `conversationId`'s interrupt (a resume), so the interrupted one is no longer the newest. */
export async function answeredAfter(ownerId: string, conversationId: string, at: Date) {
  return insertRun({ ownerId, conversationId, kind: 'resume', status: 'success', createdAt: at, finishedAt: at });
}

export const newKey = () => crypto.randomUUID();
export { schema, writeTx };
