import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as agentRoute from '@/app/api/v1/agents/[id]/route';
import * as agentsRoute from '@/app/api/v1/agents/route';
import { LIMITS } from '@/lib/limits';
import { ALLOWED_SUBAGENTS_MAX, agentCreateSchema, agentPatchSchema } from '@/lib/schemas/agent';
import { createAgent, getAgent, updateAgent } from '@/server/agents/catalog';
import { statement } from '@/server/db/statement';
import { AppError } from '@/server/http/errors';
import { call } from '../support/teams';
import { makeUser } from '../support/users';

const stored = async (ownerId: string) => (await statement('select * from agents where owner_id = ? order by id').all(ownerId));

async function appError(fn: () => Promise<unknown>): Promise<AppError> {
  try {
    await fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected an AppError, got none');
}

const ranges = [
  ['tokenBudget', LIMITS.run.tokenBudget],
  ['maxDepth', LIMITS.delegation.depth],
  ['maxChildren', LIMITS.delegation.childrenPerRun],
  ['maxConcurrentChildren', LIMITS.delegation.concurrent],
] as const;

describe('agent run limits and delegation settings', () => {
  it('defaults: no own token budget, delegation to all, depth 2, 6 children, 3 at once', async () => {
    const ann = await makeUser('ann');
    const res = await call(agentsRoute.POST, { method: 'POST', headers: ann.auth, body: { name: 'Defaults' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ tokenBudget: null, allowedSubagents: 'all', maxDepth: 2, maxChildren: 6, maxConcurrentChildren: 3 });
  });

  for (const [field, range] of ranges) {
    it(`${field}: ${range.min} and ${range.max} are accepted; ${range.min - 1} and ${range.max + 1} are field errors; fractions too`, async () => {
      const ann = await makeUser('ann');
      const agent = await createAgent(ann.id, { name: `Limits ${field}` });
      for (const ok of [range.min, range.max]) {
        const res = await call(agentRoute.PATCH, { method: 'PATCH', headers: ann.auth, params: { id: agent.id }, body: { [field]: ok } });
        expect(res.status, `${field}=${ok}`).toBe(200);
        expect(res.body[field]).toBe(ok);
      }
      const before = await stored(ann.id);
      for (const bad of [range.min - 1, range.max + 1, range.min + 0.5]) {
        const res = await call(agentRoute.PATCH, { method: 'PATCH', headers: ann.auth, params: { id: agent.id }, body: { [field]: bad } });
        expect(res.status, `${field}=${bad}`).toBe(422);
        expect((res.body.error as { fields: Record<string, string> }).fields[field]).toMatch(/^Must be a whole number/);
        // What must not happen: a refused value is stored.
        expect(await stored(ann.id)).toEqual(before);
      }
      // The form and the API refuse the same values.
      expect(agentCreateSchema.safeParse({ name: 'x', [field]: range.max + 1 }).success).toBe(false);
    });
  }

  it('tokenBudget null means the instance default again', async () => {
    const ann = await makeUser('ann');
    const agent = await createAgent(ann.id, { name: 'Budget', tokenBudget: 5_000 });
    expect((await updateAgent(ann.id, agent.id, { tokenBudget: null })).tokenBudget).toBeNull();
  });

  it("allowedSubagents: 'all', 'none' or the owner's own agent ids", async () => {
    const ann = await makeUser('ann');
    const helper = await createAgent(ann.id, { name: 'Helper' });
    const other = await createAgent(ann.id, { name: 'Other' });
    const lead = await createAgent(ann.id, { name: 'Lead', allowedSubagents: [helper.id] });
    expect((await getAgent(ann.id, lead.id)).allowedSubagents).toEqual([helper.id]);
    const res = await call(agentRoute.PATCH, { method: 'PATCH', headers: ann.auth, params: { id: lead.id }, body: { allowedSubagents: [helper.id, other.id] } });
    expect(res.status).toBe(200);
    expect(res.body.allowedSubagents).toEqual([helper.id, other.id]);
    expect((await updateAgent(ann.id, lead.id, { allowedSubagents: 'none' })).allowedSubagents).toBe('none');
    expect((await updateAgent(ann.id, lead.id, { allowedSubagents: [] })).allowedSubagents).toEqual([]);
    for (const bad of ['some', 42, [helper.id, helper.id], ['not-an-id'], [null]]) {
      expect(agentPatchSchema.safeParse({ allowedSubagents: bad }).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it(`allowedSubagents lists at most ${ALLOWED_SUBAGENTS_MAX} agents`, async () => {
    const ids = (n: number) => Array.from({ length: n }, () => crypto.randomUUID());
    expect(agentPatchSchema.safeParse({ allowedSubagents: ids(ALLOWED_SUBAGENTS_MAX) }).success).toBe(true);
    expect(agentPatchSchema.safeParse({ allowedSubagents: ids(ALLOWED_SUBAGENTS_MAX + 1) }).success).toBe(false);
  });

  it("another owner's agent id is refused as a field error, like a missing one, and nothing is stored", async () => {
    const ann = await makeUser('ann');
    const bob = await makeUser('bob');
    const bobs = await createAgent(bob.id, { name: 'Bob helper' });
    const lead = await createAgent(ann.id, { name: 'Lead' });
    const before = await stored(ann.id);
    const missing = crypto.randomUUID();
    for (const id of [bobs.id, missing]) {
      const res = await call(agentRoute.PATCH, { method: 'PATCH', headers: ann.auth, params: { id: lead.id }, body: { allowedSubagents: [id] } });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'validation_error', fields: { allowedSubagents: `Not one of your agents: ${id}` } });
    }
    // What must not happen: Ann's agent lists Bob's, or a create with it goes through.
    expect(await stored(ann.id)).toEqual(before);
    const created = await appError(() => createAgent(ann.id, { name: 'Sneaky', allowedSubagents: [bobs.id] }));
    expect(created.status).toBe(422);
    expect(await stored(ann.id)).toEqual(before);
    // Bob's own agent is untouched and Ann can't read it either.
    expect((await call(agentRoute.GET, { headers: ann.auth, params: { id: bobs.id } })).status).toBe(404);
  });
});
