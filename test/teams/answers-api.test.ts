import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import * as respondRoute from '@/app/api/v1/teams/[id]/jobs/[jobId]/respond/route';
import * as teamRoute from '@/app/api/v1/teams/[id]/route';
import * as reconnectRoute from '@/app/api/v1/teams/[id]/reconnect/route';
import * as cancelRoute from '@/app/api/v1/teams/[id]/jobs/[jobId]/cancel/route';
import { getDb, schema, writeTx } from '@/server/db';
import { sendRequest } from '@/server/teams/requests';
import { makeUser } from '../support/users';
import { call, makeTeam } from '../support/teams';

const db = () => getDb();
const job = async (id: string) => (await db().select().from(schema.jobs).where(eq(schema.jobs.id, id)))[0]!;

/** A job parked in waiting_input behind an interrupted run, as the scheduler leaves it (no scheduler here). */
async function seedWaiting(ownerId: string, waiting: unknown) {
  const { team } = await makeTeam(ownerId);
  const member = team.members[0]!;
  const { jobs } = await sendRequest(ownerId, team.id, { memberIds: [member.id], text: 'work', draftKey: crypto.randomUUID() });
  const runId = crypto.randomUUID();
  await writeTx((tx) => tx.insert(schema.runs).values({ id: runId, conversationId: member.conversationId!, ownerId, idempotencyKey: `job:${jobs[0]!.id}:start`, kind: 'start', status: 'interrupted', model: 'scripted', input: {}, interrupt: waiting }));
  await writeTx((tx) => tx.update(schema.jobs).set({ status: 'waiting_input', runId, runKey: `job:${jobs[0]!.id}:start`, waiting }).where(eq(schema.jobs.id, jobs[0]!.id)));
  return { team, member, jobId: jobs[0]!.id };
}

const clarification = { type: 'clarification', question: 'Which format?', questionId: 'call-1' };
const custom = { type: 'interrupt', payload: { type: 'choose', options: ['a', 'b'] } };

describe('respond API', () => {
  it('accepts a text answer at 8,000 raw bytes and refuses 8,001, counting bytes before JSON quoting', async () => {
    const alice = await makeUser('alice');
    const cases: Array<[string, number]> = [
      ['é'.repeat(4000), 200], // 8,000 bytes
      ['研'.repeat(2666) + 'ab', 200], // 7,998 + 2 = 8,000 bytes
      ['研'.repeat(2667), 422], // 8,001 bytes
      ['🤖'.repeat(2000), 200], // 8,000 bytes
      ['🤖'.repeat(1999) + 'abc', 200], // 7,999 bytes
      ['🤖'.repeat(2000) + 'a', 422], // 8,001 bytes
      ['"'.repeat(4000), 200], // 4,000 raw bytes though 8,002 once JSON-quoted
      ['x' + '\n'.repeat(3998) + 'y', 200],
      ['a'.repeat(4000), 200],
      ['a'.repeat(4001), 422], // characters bound first
    ];
    for (const [answer, status] of cases) {
      const { team, jobId } = await seedWaiting(alice.id, clarification);
      const res = await call(respondRoute.POST, { method: 'POST', headers: alice.auth, body: { answer, answerKey: 'k' }, params: { id: team.id, jobId } });
      expect(res.status, `${answer.slice(0, 3)}… (${answer.length})`).toBe(status);
      expect((await job(jobId)).status).toBe(status === 200 ? 'resuming' : 'waiting_input');
      if (status === 422) expect((await job(jobId)).answer).toBeNull();
    }
  });

  it('bounds a JSON response at 8,000 bytes of UTF-8 JSON', async () => {
    const alice = await makeUser('alice');
    const overhead = Buffer.byteLength(JSON.stringify({ text: '' }));
    const cases: Array<[unknown, number]> = [
      [{ text: 'a'.repeat(7999 - overhead) }, 200],
      [{ text: 'a'.repeat(8000 - overhead) }, 200],
      [{ text: 'a'.repeat(8001 - overhead) }, 422],
      [{ text: '"'.repeat(Math.floor((8000 - overhead) / 2) + 1) }, 422], // each quote costs 2 bytes escaped
      [{ text: '"'.repeat(Math.floor((8000 - overhead) / 2)) }, 200],
      [{ text: '\n'.repeat(Math.floor((8000 - overhead) / 2)) }, 200],
      [{ text: '研'.repeat(Math.floor((8000 - overhead) / 3)) }, 200],
      [{ text: '🤖'.repeat(Math.floor((8000 - overhead) / 4)) + 'a'.repeat((8000 - overhead) % 4) }, 200],
      [{ text: '🤖'.repeat(Math.floor((8000 - overhead) / 4)) + 'a'.repeat(((8000 - overhead) % 4) + 1) }, 422],
    ];
    for (const [response, status] of cases) {
      const { team, jobId } = await seedWaiting(alice.id, custom);
      const bytes = Buffer.byteLength(JSON.stringify(response));
      const res = await call(respondRoute.POST, { method: 'POST', headers: alice.auth, body: { response, answerKey: 'k' }, params: { id: team.id, jobId } });
      expect(res.status, `${bytes} bytes`).toBe(bytes <= 8000 ? 200 : 422);
      expect(res.status).toBe(status);
    }
  });

  it('refuses unpaired surrogates in text, values and keys, storing nothing', async () => {
    const alice = await makeUser('alice');
    const bodies = [
      ['"\\ud800"', clarification, 'answer'],
      ['{"text":"\\udc00"}', custom, 'response'],
      ['{"\\udc00":true}', custom, 'response'],
    ] as const;
    for (const [raw, waiting, field] of bodies) {
      const { team, jobId } = await seedWaiting(alice.id, waiting);
      const res = await call(respondRoute.POST, { method: 'POST', headers: alice.auth, body: `{"${field}":${raw},"answerKey":"k"}`, params: { id: team.id, jobId } });
      expect(res.status).toBe(422);
      expect(await job(jobId)).toMatchObject({ status: 'waiting_input', answer: null, answerKey: null });
    }
  });

  it('refuses a text answer to an interrupt, JSON to a clarification, and a job that is not waiting', async () => {
    const alice = await makeUser('alice');
    const a = await seedWaiting(alice.id, clarification);
    const wrongKind = await call(respondRoute.POST, { method: 'POST', headers: alice.auth, body: { response: { ok: true }, answerKey: 'k' }, params: { id: a.team.id, jobId: a.jobId } });
    expect(wrongKind.body).toMatchObject({ error: { code: 'validation_error', fields: { answer: expect.any(String) } } });
    const b = await seedWaiting(alice.id, custom);
    const wrongText = await call(respondRoute.POST, { method: 'POST', headers: alice.auth, body: { answer: 'yes', answerKey: 'k' }, params: { id: b.team.id, jobId: b.jobId } });
    expect(wrongText.body).toMatchObject({ error: { fields: { response: expect.any(String) } } });
    const both = await call(respondRoute.POST, { method: 'POST', headers: alice.auth, body: { answer: 'x', response: 1, answerKey: 'k' }, params: { id: b.team.id, jobId: b.jobId } });
    expect(both.status).toBe(422);
    const { team } = await makeTeam(alice.id);
    const queued = (await sendRequest(alice.id, team.id, { memberIds: [team.members[0]!.id], text: 'x', draftKey: 'q' })).jobs[0]!;
    const notWaiting = await call(respondRoute.POST, { method: 'POST', headers: alice.auth, body: { answer: 'x', answerKey: 'k' }, params: { id: team.id, jobId: queued.id } });
    expect(notWaiting.status).toBe(409);
    expect(notWaiting.body).toEqual({ error: { code: 'not_waiting', message: 'Request is not waiting for input' } });
  });

  it('validates an approval response as { approved, note? }', async () => {
    const alice = await makeUser('alice');
    const w = await seedWaiting(alice.id, { type: 'interrupt', payload: { type: 'approval', tool: 'calculator', args: { expression: '1+1' } } });
    const bad = await call(respondRoute.POST, { method: 'POST', headers: alice.auth, body: { response: { approved: 'yes' }, answerKey: 'k' }, params: { id: w.team.id, jobId: w.jobId } });
    expect(bad.body).toMatchObject({ error: { fields: { 'response.approved': expect.any(String) } } });
    // Text sent to an approval: the refusal says what an approval takes, not only "JSON".
    const text = await call(respondRoute.POST, { method: 'POST', headers: alice.auth, body: { answer: 'yes', answerKey: 'k' }, params: { id: w.team.id, jobId: w.jobId } });
    expect(text.status).toBe(422);
    expect(text.body).toMatchObject({ error: { fields: { response: 'This request waits for an approval: send response { "approved": true or false, "note"?: text }, not an answer' } } });
    const ok = await call(respondRoute.POST, { method: 'POST', headers: alice.auth, body: { response: { approved: false, note: 'not now' }, answerKey: 'k' }, params: { id: w.team.id, jobId: w.jobId } });
    expect(ok.status).toBe(200);
    expect((await job(w.jobId)).answer).toEqual({ type: 'interrupt', response: { approved: false, note: 'not now' }, answerKey: 'k' });
  });

  it('is idempotent by answer key and refuses when the conversation moved on', async () => {
    const alice = await makeUser('alice');
    const w = await seedWaiting(alice.id, clarification);
    const first = await call(respondRoute.POST, { method: 'POST', headers: alice.auth, body: { answer: 'PDF', answerKey: 'ans-1' }, params: { id: w.team.id, jobId: w.jobId } });
    const retry = await call(respondRoute.POST, { method: 'POST', headers: alice.auth, body: { answer: 'PDF', answerKey: 'ans-1' }, params: { id: w.team.id, jobId: w.jobId } });
    expect([first.status, retry.status]).toEqual([200, 200]);
    expect((await job(w.jobId)).answer).toMatchObject({ type: 'clarification', text: 'PDF', questionId: 'call-1', answerKey: 'ans-1' });

    const moved = await seedWaiting(alice.id, clarification);
    await writeTx((tx) => tx.insert(schema.runs).values({ id: crypto.randomUUID(), conversationId: moved.member.conversationId!, ownerId: alice.id, idempotencyKey: 'direct', kind: 'start', status: 'success', model: 'scripted', input: {}, createdAt: new Date(Date.now() + 1000) }));
    const refused = await call(respondRoute.POST, { method: 'POST', headers: alice.auth, body: { answer: 'PDF', answerKey: 'k' }, params: { id: moved.team.id, jobId: moved.jobId } });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ error: { code: 'clarification_changed', message: 'The member conversation moved on since this request paused; open it to see what happened, or cancel the request' } });
  });

  it('cancels in each waiting state, keeping the conversation', async () => {
    const alice = await makeUser('alice');
    const waiting = await seedWaiting(alice.id, clarification);
    expect((await call(cancelRoute.POST, { method: 'POST', headers: alice.auth, params: { id: waiting.team.id, jobId: waiting.jobId } })).body).toMatchObject({ job: { status: 'cancelled' } });
    const resuming = await seedWaiting(alice.id, clarification);
    await call(respondRoute.POST, { method: 'POST', headers: alice.auth, body: { answer: 'x', answerKey: 'k' }, params: { id: resuming.team.id, jobId: resuming.jobId } });
    expect((await job(resuming.jobId)).status).toBe('resuming');
    expect((await call(cancelRoute.POST, { method: 'POST', headers: alice.auth, params: { id: resuming.team.id, jobId: resuming.jobId } })).body).toMatchObject({ job: { status: 'cancelled' } });
    expect((await db().select().from(schema.conversations).where(eq(schema.conversations.id, resuming.member.conversationId!)))[0]).toBeDefined();
  });

  it('answers 404 to another owner on respond, delete and reconnect', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const w = await seedWaiting(alice.id, clarification);
    const res = [
      await call(respondRoute.POST, { method: 'POST', headers: bob.auth, body: { answer: 'x', answerKey: 'k' }, params: { id: w.team.id, jobId: w.jobId } }),
      await call(teamRoute.DELETE, { method: 'DELETE', headers: bob.auth, params: { id: w.team.id } }),
      await call(reconnectRoute.POST, { method: 'POST', headers: bob.auth, params: { id: w.team.id } }),
    ];
    expect(res.map((r) => r.status)).toEqual([404, 404, 404]);
    expect(await job(w.jobId)).toMatchObject({ status: 'waiting_input', answer: null });
  });
});

describe('delete and reconnect', () => {
  it('refuses to delete while anything is pending, deletes after cancel, keeps conversations', async () => {
    const alice = await makeUser('alice');
    const w = await seedWaiting(alice.id, clarification);
    const refused = await call(teamRoute.DELETE, { method: 'DELETE', headers: alice.auth, params: { id: w.team.id } });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { message: 'Cancel or complete pending requests first' } });
    await call(cancelRoute.POST, { method: 'POST', headers: alice.auth, params: { id: w.team.id, jobId: w.jobId } });
    expect((await call(teamRoute.DELETE, { method: 'DELETE', headers: alice.auth, params: { id: w.team.id } })).status).toBe(204);
    expect((await call(teamRoute.GET, { headers: alice.auth, params: { id: w.team.id } })).status).toBe(404);
    expect((await db().select().from(schema.jobs).where(eq(schema.jobs.teamId, w.team.id)))).toEqual([]);
    const conversations = await Promise.all(w.team.members.map(async (m) => (await db().select().from(schema.conversations).where(eq(schema.conversations.id, m.conversationId!)))[0]));
    expect(conversations.every(Boolean)).toBe(true);
  });

  it('finishes an interrupted creation on reconnect without replacing existing conversations', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['A', 'B', 'C']);
    const kept = team.members[0]!.conversationId;
    // Simulate a crash after the roster was written but before two member conversations existed.
    await writeTx((tx) => tx.update(schema.teamMembers).set({ conversationId: null }).where(eq(schema.teamMembers.id, team.members[1]!.id)));
    await writeTx((tx) => tx.update(schema.teamMembers).set({ conversationId: null }).where(eq(schema.teamMembers.id, team.members[2]!.id)));
    await writeTx((tx) => tx.update(schema.teams).set({ status: 'creating' }).where(eq(schema.teams.id, team.id)));
    const before = await call(teamRoute.GET, { headers: alice.auth, params: { id: team.id } });
    expect(before.body.status).toBe('creating');
    const res = await call(reconnectRoute.POST, { method: 'POST', headers: alice.auth, params: { id: team.id } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ready');
    const members = res.body.members as Array<{ conversationId: string; agentId: string }>;
    expect(members[0]!.conversationId).toBe(kept);
    expect(members.every((m) => m.conversationId)).toBe(true);
    expect(members.map((m) => m.agentId)).toEqual(team.members.map((m) => m.agentId));
    const conv = (await db().select().from(schema.conversations).where(eq(schema.conversations.id, members[1]!.conversationId)))[0]!;
    expect(conv.agentId).toBe(team.members[1]!.agentId);
  });
});
