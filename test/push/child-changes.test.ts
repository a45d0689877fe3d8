import { describe, expect, it } from 'vitest';
import { createConversation } from '@/server/agents/conversations';
import { bridgeChildChanges, childChangesAnnounced } from '@/server/agents/delegation/announce-children';
import { delegationEvents } from '@/server/agents/delegation/events';
import { acceptChild } from '@/server/agents/delegation/ledger';
import type { DelegationSpec } from '@/server/agents/delegation/spec';
import { runEvents } from '@/server/agents/run-events';
import { subscribeConversation, type ConversationChange } from '@/server/push/bus';
import { makeAgent } from '../agents/helpers';
import { insertRun } from '../support/runs';
import { makeUser } from '../support/users';

const runningRun = (ownerId: string, conversationId: string, parentRunId: string | null = null) =>
  insertRun({ ownerId, conversationId, status: 'running', parentRunId });

/**
 * Everything announced on a conversation by `act`: once its parent lookups are done (childChangesAnnounced) and the
 * microtasks that flush the notes have run.
 */
async function heardOn(conversationId: string, act: () => unknown): Promise<string[][]> {
  const heard: ConversationChange[] = [];
  const off = subscribeConversation(conversationId, (c) => heard.push(c));
  await act();
  await childChangesAnnounced();
  await Promise.resolve();
  await Promise.resolve();
  off();
  return heard.map((c) => c.runIds);
}

describe("a delegated child's progress is announced as a change of its parent run", () => {
  it('announces child start and finish, and a finished row, on the parent’s conversation, naming the parent run', async () => {
    bridgeChildChanges();
    bridgeChildChanges(); // once per process: a second call adds no second listener
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    const parentConversation = (await createConversation(alice.id, agent.id)).id;
    const childConversation = (await createConversation(alice.id, agent.id)).id;
    const parent = await runningRun(alice.id, parentConversation);
    const child = await runningRun(alice.id, childConversation, parent.id);
    const lifecycle = (runId: string, conversationId: string) => ({ runId, conversationId, ownerId: alice.id, status: 'running' as const });

    expect(await heardOn(parentConversation, () => runEvents().emit('run:started', lifecycle(child.id, childConversation)))).toEqual([[parent.id]]);
    expect(await heardOn(parentConversation, () => runEvents().emit('run:finished', lifecycle(child.id, childConversation)))).toEqual([[parent.id]]);
    expect(await heardOn(parentConversation, () => delegationEvents().emit('finished', { delegationId: 'd', parentRunId: parent.id }))).toEqual([[parent.id]]);
    // A run without a parent (the parent itself, an ordinary turn) announces nothing extra on the parent's conversation.
    expect(await heardOn(parentConversation, () => runEvents().emit('run:started', lifecycle(parent.id, parentConversation)))).toEqual([]);
    // A lookup that finds nothing (a row already gone) is not an error and announces nothing.
    expect(await heardOn(parentConversation, () => delegationEvents().emit('finished', { delegationId: 'd', parentRunId: 'gone' }))).toEqual([]);
  });

  it('announces a child accepted into the ledger (queued) after the inserting transaction', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    const conversationId = (await createConversation(alice.id, agent.id)).id;
    const parent = await runningRun(alice.id, conversationId);
    const spec = { request: { description: 'd', prompt: 'p' }, trusted: false, limits: { concurrency: 2, maxDepth: 2 } } as unknown as DelegationSpec;
    const ref = { runId: parent.id, ownerId: alice.id, conversationId, toolCallId: 'call-1', teamId: null, depth: 0, holdsSlot: false };
    const heard = await heardOn(conversationId, async () => {
      expect(await acceptChild(ref, { agentId: agent.id, provider: 'spawn', spec }, 5)).toMatchObject({ status: 'queued' });
    });
    expect(heard).toEqual([[parent.id]]);
  });
});
