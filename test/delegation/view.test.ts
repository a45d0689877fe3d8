import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createConversation } from '@/server/agents/conversations';
import { getDb, schema } from '@/server/db';
import type { DelegationSpec } from '@/server/agents/delegation/spec';
import { loadSchedulingView } from '@/server/scheduler/view';
import { makeAgent } from '../agents/helpers';
import { makeUser } from '../support/users';

type RunStatus = 'pending' | 'running' | 'success' | 'cancelled';

function insertRun(ownerId: string, conversationId: string, status: RunStatus, delegationWait: 'waiting' | 'ready' | null = null) {
  return getDb()
    .insert(schema.runs)
    .values({ id: crypto.randomUUID(), conversationId, ownerId, idempotencyKey: crypto.randomUUID(), kind: 'start', status, model: 'scripted', input: { text: 'x' }, delegationWait })
    .returning()
    .get();
}

function insertChild(ownerId: string, parent: { id: string; conversationId: string }, status: 'queued' | 'running', childRunId: string | null = null, concurrency = 2) {
  const spec = { request: { description: 'd', prompt: 'p' }, trusted: false, limits: { concurrency, maxDepth: 2 } } as unknown as DelegationSpec;
  return getDb()
    .insert(schema.delegations)
    .values({ id: crypto.randomUUID(), ownerId, parentRunId: parent.id, parentConversationId: parent.conversationId, parentToolCallId: crypto.randomUUID(), provider: 'spawn', spec, depth: 1, status, childRunId })
    .returning()
    .get();
}

describe('the scheduling view of delegation', () => {
  it('counts running children as slots (not one that waits on its own children), offers queued ones up to the concurrency, ready parents first, and flags orphans', async () => {
    const alice = await makeUser('alice');
    const agent = makeAgent(alice.id);
    const conversation = () => createConversation(alice.id, agent.id).id;
    const parent = insertRun(alice.id, conversation(), 'running');
    const runningChild = insertRun(alice.id, conversation(), 'running');
    insertChild(alice.id, parent, 'running', runningChild.id);
    const queued = Array.from({ length: 5 }, () => insertChild(alice.id, parent, 'queued'));
    // A child that itself waits on its children lends its slot.
    const lender = insertRun(alice.id, conversation(), 'running', 'waiting');
    const other = insertRun(alice.id, conversation(), 'running');
    insertChild(alice.id, other, 'running', lender.id, 1);
    // A run whose children all finished, waiting to take its slot back.
    const ready = insertRun(alice.id, conversation(), 'running', 'ready');
    // A parent that finished with a child still queued: that child is stopped, never offered.
    const gone = insertRun(alice.id, conversation(), 'cancelled');
    const orphan = insertChild(alice.id, gone, 'queued');

    const view = loadSchedulingView(getDb());
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
