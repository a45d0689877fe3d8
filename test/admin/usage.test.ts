import crypto from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { GET as listUsers } from '@/app/api/v1/admin/users/route';
import { createConversation } from '@/server/agents/conversations';
import { getDb, schema, writeTx } from '@/server/db';
import type { JobStatus } from '@/server/db/schema';
import { insertRun } from '../support/runs';
import { call, makeAgents, makeTeam } from '../support/teams';
import { makeAccount } from './helpers';

/**
 * The admin's usage figures come from the rows themselves. The test writes rows with known numbers (runs with
 * token counts, jobs in every status) and expects exactly those sums back, per account, with nothing of one
 * account counted for another.
 */

beforeEach(async () => {
  await writeTx((tx) => tx.delete(schema.users));
});

const finishedRun = (ownerId: string, conversationId: string, kind: 'start' | 'resume', inputTokens: number, outputTokens: number) =>
  insertRun({ ownerId, conversationId, kind, status: 'success', inputTokens, outputTokens });

async function insertJob(ownerId: string, teamId: string, conversationId: string, status: JobStatus) {
  const id = crypto.randomUUID();
  await writeTx((tx) =>
    tx
      .insert(schema.jobs)
      .values({ id, teamId, ownerId, kind: 'request', conversationId, rootId: id, status, text: 'do it', requestKey: id, updatedAt: new Date() }),
  );
}

type Listed = { users: { id: string; usage: Record<string, number> }[] };

describe('account usage', () => {
  it('counts runs, model tokens, unfinished jobs, agents and conversations per account from real rows', async () => {
    const admin = await makeAccount('admin', 'admin');
    const ann = await makeAccount('ann', 'member');
    const idle = await makeAccount('idle', 'member');

    // Ann: a team of two (2 agents, 2 member conversations), one more agent with one conversation.
    const { team, agents } = await makeTeam(ann.id);
    const [solo] = await makeAgents(ann.id, ['Solo']);
    const chat = await createConversation(ann.id, solo!.id);
    await finishedRun(ann.id, chat.id, 'start', 100, 20);
    await finishedRun(ann.id, chat.id, 'resume', 5, 7);
    await finishedRun(ann.id, chat.id, 'start', 0, 0);
    const memberConversation = (await getDb().select().from(schema.teamMembers)).find((m) => m.teamId === team.id)!.conversationId!;
    for (const status of ['queued', 'running', 'waiting_input', 'resuming', 'cancelling', 'completed', 'failed', 'cancelled'] as const) {
      await insertJob(ann.id, team.id, memberConversation, status);
    }
    // The admin: one agent, one conversation, one run.
    const [own] = await makeAgents(admin.id, ['Mine']);
    const adminChat = await createConversation(admin.id, own!.id);
    await finishedRun(admin.id, adminChat.id, 'start', 1_000_000, 2_345);

    const res = await call(listUsers, { headers: admin.auth });
    expect(res.status).toBe(200);
    const usage = Object.fromEntries((res.body as Listed).users.map((u) => [u.id, u.usage]));
    expect(usage[ann.id]).toEqual({ runs: 3, modelTokens: 132, cost: '0.00', unknownCostRuns: 3, activeJobs: 5, agents: agents.length + 1, conversations: 3 });
    expect(usage[admin.id]).toEqual({ runs: 1, modelTokens: 1_002_345, cost: '0.00', unknownCostRuns: 1, activeJobs: 0, agents: 1, conversations: 1 });
    expect(usage[idle.id]).toEqual({ runs: 0, modelTokens: 0, cost: '0.00', unknownCostRuns: 0, activeJobs: 0, agents: 0, conversations: 0 });
  });

  it('lists every account oldest first with role and state, never a password hash', async () => {
    const admin = await makeAccount('admin', 'admin');
    const bo = await makeAccount('bo', 'member');
    const res = await call(listUsers, { headers: admin.auth });
    const users = (res.body as { users: Record<string, unknown>[] }).users;
    expect(users.map((u) => u.id)).toEqual([admin.id, bo.id]);
    expect(users[1]).toEqual({
      id: bo.id,
      email: bo.email,
      name: 'bo',
      role: 'member',
      disabledAt: null,
      createdAt: expect.any(String),
      usage: { runs: 0, modelTokens: 0, cost: '0.00', unknownCostRuns: 0, activeJobs: 0, agents: 0, conversations: 0 },
    });
    expect(res.raw).not.toMatch(/password|hash|sessionVersion/i);
  });
});
