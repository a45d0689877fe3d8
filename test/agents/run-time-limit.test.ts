import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import * as runRoute from '@/app/api/v1/runs/[id]/route';
import * as agentsRoute from '@/app/api/v1/agents/route';
import * as agentRoute from '@/app/api/v1/agents/[id]/route';
import { LIMITS } from '@/lib/limits';
import { agentCreateSchema, agentPatchSchema } from '@/lib/schemas/agent';
import { start } from '@/server/agents/runs';
import { setRunMinuteMsForTests } from '@/server/agents/run-time-limit';
import { getDb, schema, writeTx } from '@/server/db';
import { sendRequest } from '@/server/teams/requests';
import { GATE_GROUP, registerGateTool } from '../support/gate-tool';
import { settled, withScheduler } from '../support/scheduler';
import { call, makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';
import { conversationWith, finished } from './helpers';

const gate = registerGateTool();
withScheduler({ tickMs: 50 });
const key = () => crypto.randomUUID();

afterEach(async () => setRunMinuteMsForTests(undefined));

describe('wall-clock limit per run', () => {
  it('stops a run at the default limit with a stated reason (status error, stopReason time_capped)', async () => {
    // The default 15 "minutes" last 600 ms: long enough for a run's first step on either engine (Postgres keeps
    // checkpoints in the database: a step takes a few transactions), far shorter than the run's 20 s sleep.
    setRunMinuteMsForTests(40);
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { name: 'Slow' });
    const { run } = await start(alice.id, conversation.id, { text: '/sleep 20000\n/reply never' }, { idempotencyKey: key() });
    const capped = await finished(run.id);
    expect(LIMITS.run.defaultTimeLimitMinutes).toBe(15);
    expect(capped).toMatchObject({ status: 'error', stopReason: 'time_capped', error: "Stopped after 15 minutes (the run's time limit)" });
    const view = await call(runRoute.GET, { headers: alice.auth, params: { id: run.id } });
    expect(view.body).toMatchObject({ run: { status: 'error', stopReason: 'time_capped' } });
    // The conversation continues after a capped run.
    const next = await start(alice.id, conversation.id, { text: '/reply back' }, { idempotencyKey: key() });
    expect(await finished(next.run.id)).toMatchObject({ status: 'success', stopReason: null });
  });

  it("uses the agent's own limit: a run inside it finishes, one past it is stopped", async () => {
    setRunMinuteMsForTests(1_000);
    const alice = await makeUser('bea');
    const { conversation } = await conversationWith(alice.id, { name: 'Own limit', timeLimitMinutes: 2 }); // 2 s
    const inside = await start(alice.id, conversation.id, { text: '/sleep 20\n/reply in time' }, { idempotencyKey: key() });
    expect(await finished(inside.run.id)).toMatchObject({ status: 'success', stopReason: null });
    const past = await start(alice.id, conversation.id, { text: '/sleep 20000' }, { idempotencyKey: key() });
    const startedAt = Date.now();
    expect(await finished(past.run.id)).toMatchObject({ status: 'error', stopReason: 'time_capped', error: "Stopped after 2 minutes (the run's time limit)" });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_990);
  });

  it('a capped run whose tool ignores the abort stays running until the tool returns, then records the cap', async () => {
    // 1 "minute" = 2 s: the run reaches its tool call well inside it on either engine, so the cap fires mid-call.
    setRunMinuteMsForTests(2_000);
    gate.close();
    const alice = await makeUser('cyd');
    const { conversation } = await conversationWith(alice.id, { name: 'Held', timeLimitMinutes: 1, toolGroups: [GATE_GROUP] });
    const { run } = await start(alice.id, conversation.id, { text: '/call hold {}' }, { idempotencyKey: key() });
    await until(async () => gate.executing === 1, 5_000, 'the tool call');
    const row = async () => (await getDb().select().from(schema.runs).where(eq(schema.runs.id, run.id)))[0]!;
    // Well past the 2 s limit, the run is still running because its tool is.
    await until(async () => (await row()).startedAt && Date.now() - (await row()).startedAt!.getTime() > 2_200, 5_000, 'the limit to pass');
    expect((await row()).status).toBe('running');
    gate.open();
    expect(await finished(run.id)).toMatchObject({ status: 'error', stopReason: 'time_capped', error: "Stopped after 1 minute (the run's time limit)" });
  });

  it('a team job whose run was time-capped fails with that reason', async () => {
    setRunMinuteMsForTests(100);
    const alice = await makeUser('dee');
    const { team, agents } = await makeTeam(alice.id, ['Capped', 'Other']);
    await writeTx((tx) => tx.update(schema.agents).set({ timeLimitMinutes: 1 }).where(eq(schema.agents.id, agents[0]!.id)));
    const job = (await sendRequest(alice.id, team.id, { memberIds: [team.members[0]!.id], text: '/sleep 20000\n/reply never', draftKey: key() })).jobs[0]!;
    const failed = await settled(job.id);
    expect(failed).toMatchObject({ status: 'failed', error: "Stopped after 1 minute (the run's time limit)" });
    const run = (await getDb().select().from(schema.runs).where(eq(schema.runs.id, failed.runId!)))[0]!;
    expect(run.stopReason).toBe('time_capped');
  });
});

describe('agent time limit field', () => {
  it('accepts 1 and 120 minutes or null, refuses 0, 121, fractions and text', async () => {
    for (const ok of [1, 120, null]) expect(agentCreateSchema.parse({ name: 'A', timeLimitMinutes: ok }).timeLimitMinutes).toBe(ok);
    expect(agentCreateSchema.parse({ name: 'A' }).timeLimitMinutes).toBeNull();
    for (const bad of [0, 121, 1.5, '10', -1]) {
      const result = agentPatchSchema.safeParse({ timeLimitMinutes: bad });
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.message).toBe('Must be a whole number of minutes from 1 to 120');
    }
  });

  it('is stored, returned and cleared through the API, and only for its owner', async () => {
    const alice = await makeUser('eve');
    const bob = await makeUser('fay');
    const created = await call(agentsRoute.POST, { method: 'POST', headers: alice.auth, body: { name: 'Timed', timeLimitMinutes: 120 } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({ timeLimitMinutes: 120 });
    const tooLong = await call(agentRoute.PATCH, { method: 'PATCH', headers: alice.auth, params: { id }, body: { timeLimitMinutes: 121 } });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body).toMatchObject({ error: { fields: { timeLimitMinutes: 'Must be a whole number of minutes from 1 to 120' } } });
    const foreign = await call(agentRoute.PATCH, { method: 'PATCH', headers: bob.auth, params: { id }, body: { timeLimitMinutes: 1 } });
    expect(foreign.status).toBe(404);
    const cleared = await call(agentRoute.PATCH, { method: 'PATCH', headers: alice.auth, params: { id }, body: { timeLimitMinutes: null } });
    expect(cleared.body).toMatchObject({ timeLimitMinutes: null });
    expect((await getDb().select().from(schema.agents).where(eq(schema.agents.id, id)))[0]!.timeLimitMinutes).toBeNull();
  });
});
