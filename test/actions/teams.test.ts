import { signIn } from '../support/action-session';
import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

const actions = await import('@/app/(app)/teams/actions');
const teamRoute = await import('@/app/api/v1/teams/[id]/route');
const { getDb, schema, writeTx } = await import('@/server/db');
const { makeUser } = await import('../support/users');
const { call, makeAgents, makeTeam } = await import('../support/teams');
const { createPersonEntry } = await import('@/server/teams/person-state');
const { NOT_FOUND, fieldError, rowsOf } = await import('./support');

const teamRows = () => rowsOf(schema.teams, schema.teamMembers, schema.jobs, schema.conversations, schema.stateEntries);
const jobRow = async (id: string) => (await getDb().select().from(schema.jobs).where(eq(schema.jobs.id, id)))[0]!;
const rid = () => crypto.randomUUID();

/** A job parked in waiting_input behind an interrupted run, as the scheduler leaves it (no scheduler here). */
async function seedWaiting(ownerId: string, teamId: string, memberId: string, conversationId: string) {
  const jobId = rid();
  const now = new Date();
  const runId = rid();
  const waiting = { type: 'clarification', question: 'Which format?', questionId: 'call-1' };
  await writeTx(async (tx) => {
    await tx
      .insert(schema.jobs)
      .values({ id: jobId, teamId, ownerId, kind: 'request', memberId, conversationId, rootId: jobId, status: 'waiting_input', text: 'work', requestKey: rid(), runId, runKey: `job:${jobId}:start`, waiting, updatedAt: now });
    await tx
      .insert(schema.runs)
      .values({ id: runId, conversationId, ownerId, idempotencyKey: `job:${jobId}:start`, kind: 'start', status: 'interrupted', model: 'scripted', input: {}, interrupt: waiting });
  });
  return jobId;
}

describe('team actions, for the owner', () => {
  it('createTeamAction makes the team the API makes (one conversation per member), idempotent by requestId', async () => {
    const alice = await makeUser('alice');
    const agents = await makeAgents(alice.id, ['Writer', 'Critic']);
    signIn(alice);
    const input = { requestId: rid(), name: 'Launch', goal: 'Write the launch post', agentIds: agents.map((a) => a.id) };
    const created = await actions.createTeamAction(input);
    expect(created).toMatchObject({ ok: true, data: { name: 'Launch', status: 'ready' } });
    if (!created.ok) throw new Error('unreachable');
    // What the API's GET answers for it afterwards is exactly what the action answered.
    const got = await call(teamRoute.GET, { headers: alice.auth, params: { id: created.data.id } });
    expect(got.body).toEqual(JSON.parse(JSON.stringify(created.data)));
    expect(created.data.members.every((m) => m.conversationId)).toBe(true);
    const again = await actions.createTeamAction(input);
    expect(again).toMatchObject({ ok: true, data: { id: created.data.id } });
    expect(await getDb().select().from(schema.teams).where(eq(schema.teams.ownerId, alice.id))).toHaveLength(1);
  });

  it('sendTeamRequestAction queues one job per member; the same draftKey answers the same jobs', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    signIn(alice);
    const memberIds = team.members.map((m) => m.id);
    const input = { memberIds, text: 'Summarise the plan', draftKey: 'draft-1' };
    const sent = await actions.sendTeamRequestAction(team.id, input);
    if (!sent.ok) throw new Error(JSON.stringify(sent.error));
    expect(sent.data.jobs.map((j) => j.memberId)).toEqual(memberIds);
    for (const job of sent.data.jobs) expect(await jobRow(job.id)).toMatchObject({ status: 'queued', text: 'Summarise the plan', teamId: team.id, ownerId: alice.id });
    const again = await actions.sendTeamRequestAction(team.id, input);
    expect(again).toEqual({ ok: true, data: { jobs: sent.data.jobs } });
    expect(await actions.sendTeamRequestAction(team.id, { ...input, text: 'other' })).toMatchObject({ ok: false, error: { code: expect.any(String) } });
    expect(await getDb().select().from(schema.jobs).where(eq(schema.jobs.teamId, team.id))).toHaveLength(2);
  });

  it('bounds the task text like the API: 4,000 characters and 8,000 bytes pass, one more is a field error', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    signIn(alice);
    const send = (text: string) => actions.sendTeamRequestAction(team.id, { memberIds: [team.members[0]!.id], text, draftKey: rid() });
    expect(await send('a'.repeat(4000))).toMatchObject({ ok: true });
    expect(await send('a'.repeat(4001))).toMatchObject(fieldError('text'));
    expect(await send('研'.repeat(2666) + 'ab')).toMatchObject({ ok: true }); // 8,000 bytes
    expect(await send('研'.repeat(2667))).toMatchObject(fieldError('text')); // 8,001 bytes
    expect(await actions.sendTeamRequestAction(team.id, { memberIds: [], text: 'x', draftKey: rid() })).toMatchObject(fieldError('memberIds'));
    expect(await actions.sendTeamRequestAction(team.id, { memberIds: [team.members[0]!.id], text: 'x', draftKey: rid(), extra: 1 })).toMatchObject(
      fieldError('extra', 'Unknown field'),
    );
  });

  it('createTeamAction names the field: 2 agents pass, 1 is refused; a name of 80 characters passes, 81 is refused', async () => {
    const alice = await makeUser('alice');
    const ids = (await makeAgents(alice.id, ['X', 'Y'])).map((a) => a.id);
    signIn(alice);
    const create = (over: Record<string, unknown>) => actions.createTeamAction({ requestId: rid(), name: 'T', goal: 'G', agentIds: ids, ...over });
    expect(await create({ name: 'a'.repeat(80) })).toMatchObject({ ok: true });
    expect(await create({ name: 'a'.repeat(81) })).toMatchObject(fieldError('name', expect.stringContaining('80 characters')));
    expect(await create({ agentIds: [ids[0]] })).toMatchObject(fieldError('agentIds'));
  });

  it('cancelJobAction cancels a queued job, respondToJobAction answers a waiting one', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    signIn(alice);
    const sent = await actions.sendTeamRequestAction(team.id, { memberIds: [team.members[0]!.id], text: 'x', draftKey: 'k' });
    if (!sent.ok) throw new Error(JSON.stringify(sent.error));
    const jobId = sent.data.jobs[0]!.id;
    expect(await actions.cancelJobAction(team.id, jobId)).toMatchObject({ ok: true, data: { job: { id: jobId, status: 'cancelled' } } });
    expect((await jobRow(jobId)).status).toBe('cancelled');

    const member = team.members[1]!;
    const waitingId = await seedWaiting(alice.id, team.id, member.id, member.conversationId!);
    expect(await actions.respondToJobAction(team.id, waitingId, { answer: 'a'.repeat(4001), answerKey: 'a1' })).toMatchObject(fieldError('answer'));
    expect(await jobRow(waitingId)).toMatchObject({ status: 'waiting_input', answer: null });
    expect(await actions.respondToJobAction(team.id, waitingId, { answer: 'a'.repeat(4000), answerKey: 'a1' })).toMatchObject({ ok: true, data: { job: { id: waitingId } } });
    expect(await jobRow(waitingId)).toMatchObject({ status: 'resuming', answerKey: 'a1' });
  });

  it('reconnectTeamAction answers the ready team; deleteTeamAction refuses while a job is pending, then deletes', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    signIn(alice);
    expect(await actions.reconnectTeamAction(team.id)).toMatchObject({ ok: true, data: { id: team.id, status: 'ready' } });
    const sent = await actions.sendTeamRequestAction(team.id, { memberIds: [team.members[0]!.id], text: 'x', draftKey: 'k' });
    if (!sent.ok) throw new Error(JSON.stringify(sent.error));
    expect(await actions.deleteTeamAction(team.id)).toMatchObject({ ok: false, error: { code: 'team_busy' } });
    await actions.cancelJobAction(team.id, sent.data.jobs[0]!.id);
    expect(await actions.deleteTeamAction(team.id)).toEqual({ ok: true, data: null });
    expect((await getDb().select().from(schema.teams).where(eq(schema.teams.id, team.id)))[0]).toBeUndefined();
  });
});

describe('team actions, for anyone else', () => {
  async function fixtures() {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { team } = await makeTeam(alice.id);
    const member = team.members[0]!;
    const jobId = await seedWaiting(alice.id, team.id, member.id, member.conversationId!);
    const bobsAgents = await makeAgents(bob.id, ['B1', 'B2']);
    const aliceAgents = await makeAgents(alice.id, ['A1', 'A2']);
    const entryId = (await createPersonEntry(alice.id, team.id, { requestId: rid(), kind: 'plan', title: 'Alice plans', content: 'Hers' })).entry.id;
    return { alice, bob, team, member, jobId, bobsAgents, aliceAgents, entryId };
  }
  type Fixtures = Awaited<ReturnType<typeof fixtures>>;

  /** Valid arguments naming alice's things, for every exported action; a new action without a case fails. */
  const argsFor = (f: Fixtures): Record<string, unknown[]> => ({
    createTeamAction: [{ requestId: rid(), name: 'Mine now', goal: 'G', agentIds: f.aliceAgents.map((a) => a.id) }],
    sendTeamRequestAction: [f.team.id, { memberIds: [f.member.id], text: 'x', draftKey: rid() }],
    cancelJobAction: [f.team.id, f.jobId],
    respondToJobAction: [f.team.id, f.jobId, { answer: 'yes', answerKey: rid() }],
    reconnectTeamAction: [f.team.id],
    deleteTeamAction: [f.team.id],
    updateTeamBudgetAction: [f.team.id, { tokenBudget: 1_000 }],
    retryJobAction: [f.team.id, f.jobId, { requestId: rid() }],
    cancelAllJobsAction: [f.team.id],
    updateTeamSettingsAction: [f.team.id, { name: 'Taken over', goal: 'Mine now' }],
    cloneTeamAction: [f.team.id, { requestId: rid() }],
    createStateEntryAction: [f.team.id, { requestId: rid(), kind: 'finding', title: 'Mine now', content: 'Taken over' }],
    updateStateEntryAction: [f.team.id, f.entryId, { expectedRevision: 1, title: 'Taken over' }],
  });
  type Action = (...args: unknown[]) => Promise<unknown>;

  it("another owner gets not_found (or, for agent ids, the API's unknown-agent field error) and nothing changes", async () => {
    const f = await fixtures();
    const cases = argsFor(f);
    expect(Object.keys(actions).sort()).toEqual(Object.keys(cases).sort());
    signIn(f.bob);
    for (const [name, action] of Object.entries(actions) as [string, Action][]) {
      const before = await teamRows();
      const result = await action(...cases[name]!);
      if (name === 'createTeamAction') expect(result, name).toMatchObject(fieldError('agentIds', expect.stringContaining('Unknown agent')));
      else expect(result, name).toMatchObject(NOT_FOUND);
      expect(await teamRows(), `${name} changed state`).toBe(before);
    }
  });

  it('signed out, every action answers unauthorized and nothing changes', async () => {
    const f = await fixtures();
    const cases = argsFor(f);
    for (const [name, action] of Object.entries(actions) as [string, Action][]) {
      const before = await teamRows();
      expect(await action(...cases[name]!), name).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
      expect(await teamRows(), `${name} changed state`).toBe(before);
    }
  });

  it('ids that are not strings answer not_found, never a crash', async () => {
    const f = await fixtures();
    signIn(f.alice);
    expect(await actions.cancelJobAction({ id: f.team.id }, f.jobId)).toMatchObject(NOT_FOUND);
    expect(await actions.deleteTeamAction(42)).toMatchObject(NOT_FOUND);
  });
});
