import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createConversation } from '@/server/agents/conversations';
import { schema, writeTx } from '@/server/db';
import type { DelegationSpec } from '@/server/agents/delegation/spec';
import { loadSchedulingView } from '@/server/scheduler/view';
import { makeAgent } from '../agents/helpers';
import { insertRun } from '../support/runs';
import { makeUser } from '../support/users';

type RunStatus = 'pending' | 'running' | 'success' | 'cancelled';

const runIn = (ownerId: string, conversationId: string, status: RunStatus, delegationWait: 'waiting' | 'ready' | null = null) =>
  insertRun({ ownerId, conversationId, status, delegationWait });

async function insertChild(ownerId: string, parent: { id: string; conversationId: string }, status: 'queued' | 'running', childRunId: string | null = null, concurrency = 2) {
  const spec = { request: { description: 'd', prompt: 'p' }, trusted: false, limits: { concurrency, maxDepth: 2 } } as unknown as DelegationSpec;
  const [row] = await writeTx(async (tx) =>
    tx
      .insert(schema.delegations)
      .values({ id: crypto.randomUUID(), ownerId, parentRunId: parent.id, parentConversationId: parent.conversationId, parentToolCallId: crypto.randomUUID(), provider: 'spawn', spec, depth: 1, status, childRunId })
      .returning(),
  );
  return row!;
}

describe('the scheduling view of delegation', () => {
  it('counts running children as slots (not one that waits on its own children), offers queued ones up to the concurrency, ready parents first, and flags orphans', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    const conversation = async () => (await createConversation(alice.id, agent.id)).id;
    const parent = await runIn(alice.id, await conversation(), 'running');
    const runningChild = await runIn(alice.id, await conversation(), 'running');
    await insertChild(alice.id, parent, 'running', runningChild.id);
    const queued = [];
    for (let i = 0; i < 5; i++) queued.push(await insertChild(alice.id, parent, 'queued'));
    // A child that itself waits on its children lends its slot.
    const lender = await runIn(alice.id, await conversation(), 'running', 'waiting');
    const other = await runIn(alice.id, await conversation(), 'running');
    await insertChild(alice.id, other, 'running', lender.id, 1);
    // A run whose children all finished, waiting to take its slot back.
    const ready = await runIn(alice.id, await conversation(), 'running', 'ready');
    // A parent that finished with a child still queued: that child is stopped, never offered.
    const gone = await runIn(alice.id, await conversation(), 'cancelled');
    const orphan = await insertChild(alice.id, gone, 'queued');

    const view = await loadSchedulingView();
    expect(view.activeCount).toBe(1);
    expect(Object.fromEntries(view.heldSlots)).toEqual({ [alice.id]: 1 });
    const candidates = view.queues.find((q) => q.ownerId === alice.id)!.candidates;
    // concurrency 2 − 1 running = one of the five queued; the ready parent comes first.
    expect(candidates.map((c) => [c.kind, c.kind === 'parent' ? c.runId : c.delegationId])).toEqual([
      ['parent', ready.id],
      ['child', queued[0]!.id],
    ]);
    expect(view.delegations.find((d) => d.delegationId === orphan.id)).toMatchObject({ orphaned: true });
    expect(view.delegations.filter((d) => !d.orphaned).map((d) => d.childRunId).sort()).toEqual([runningChild.id, lender.id].sort());
  });
});
