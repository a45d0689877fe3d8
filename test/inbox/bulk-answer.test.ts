import { signIn } from '../support/action-session';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

const { answerApprovalsAction } = await import('@/app/(app)/inbox/actions');
const { LIMITS } = await import('@/lib/limits');
const { resume } = await import('@/server/agents/runs');
const { getDb, schema } = await import('@/server/db');
const { readInbox } = await import('@/server/inbox/read');
const { sendRequest } = await import('@/server/teams/requests');
const { conversationWith, finished, send } = await import('../agents/helpers');
const { job, settled, withScheduler } = await import('../support/scheduler');
const { makeTeam } = await import('../support/teams');
const { makeUser } = await import('../support/users');
const { insertRun } = await import('../support/runs');
const { newKey, storedApproval, storedApprovals } = await import('./helpers');

withScheduler();

type User = Awaited<ReturnType<typeof makeUser>>;
const runsOf = (conversationId: string) => getDb().select().from(schema.runs).where(eq(schema.runs.conversationId, conversationId));
const inboxIds = async (ownerId: string) => (await readInbox(ownerId, { limit: LIMITS.inbox.maxLimit })).items.map((i) => i.id);

async function chatApproval(owner: User, expression: string) {
  const { conversation } = await conversationWith(owner.id, { toolGroups: ['utility', 'clarify'], approvalTools: ['calculator'] });
  const run = await send(owner.id, conversation.id, `/call calculator {"expression":"${expression}"}`);
  expect(run.status).toBe('interrupted');
  return { conversationId: conversation.id, run, id: `chat:${run.id}` };
}

async function teamWaiting(owner: User, text: string) {
  const { team } = await makeTeam(owner.id, ['Calc'], { toolGroups: ['utility', 'clarify'], approvalTools: ['calculator'] });
  const sent = (await sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text, draftKey: newKey() })).jobs[0]!;
  expect((await settled(sent.id)).status).toBe('waiting_input');
  return { team, jobId: sent.id, id: `team:${sent.id}` };
}

describe('approving or declining several approvals at once', () => {
  it('answers each, and reports one answered elsewhere, a question and another owner’s item without losing the others', async () => {
    const owner = await makeUser('ann');
    const stranger = await makeUser('stranger');
    const a = await chatApproval(owner, '6*7');
    const b = await teamWaiting(owner, '/call calculator {"expression":"2+2"}');
    const c = await chatApproval(owner, '1+1');
    const question = await teamWaiting(owner, '/ask Which region?');
    const theirs = await chatApproval(stranger, '9*9');
    // c is answered in its chat while the inbox still shows it.
    await finished((await resume(owner.id, c.conversationId, { approved: false }, { idempotencyKey: newKey() })).run.id);

    signIn(owner);
    const result = await answerApprovalsAction({ ids: [a.id, b.id, c.id, question.id, theirs.id], decision: { approved: true, note: 'ok 👍' }, bulkKey: 'bulk-1' });
    expect(result).toEqual({
      ok: true,
      data: {
        outcomes: [
          { id: a.id, ok: true },
          { id: b.id, ok: true },
          { id: c.id, ok: false, code: 'already_answered', message: expect.any(String) },
          { id: question.id, ok: false, code: 'not_an_approval', message: expect.any(String) },
          { id: theirs.id, ok: false, code: 'not_found', message: expect.any(String) },
        ],
      },
    });
    // The approvals went on: the chat ran its tool, the team's request finished with the result.
    const aRuns = await runsOf(a.conversationId);
    const aResume = aRuns.find((r) => r.kind === 'resume')!;
    expect(aResume.input).toMatchObject({ value: { approved: true, note: 'ok 👍' } });
    expect((await finished(aResume.id)).status).toBe('success');
    expect((await settled(b.jobId)).result).toContain('[calculator] 4');
    // What must not happen: the question answered, c answered twice, or anything of the stranger's touched.
    expect((await job(question.jobId)).status).toBe('waiting_input');
    expect((await runsOf(c.conversationId)).filter((r) => r.kind === 'resume')).toHaveLength(1);
    expect(await runsOf(theirs.conversationId)).toEqual([theirs.run]);
    expect(await inboxIds(owner.id)).toEqual([question.id]);
    expect(await inboxIds(stranger.id)).toEqual([theirs.id]);

    // The same bulk again (a lost response retried) answers nothing twice.
    const again = await answerApprovalsAction({ ids: [a.id, b.id], decision: { approved: true, note: 'ok 👍' }, bulkKey: 'bulk-1' });
    expect(again).toMatchObject({ ok: true, data: { outcomes: [{ id: a.id }, { id: b.id }] } });
    expect((await runsOf(a.conversationId)).filter((r) => r.kind === 'resume')).toHaveLength(1);
  });

  it('never applies a decision to a newer call than the one shown: a stale item whose chat moved on is already answered', async () => {
    const owner = await makeUser('bea');
    const shown = await storedApproval(owner.id, new Date('2026-04-01T00:00:00Z'), 'calculator');
    // Answered elsewhere, and the chat then stopped at another approval (a different call).
    const newer = await insertRun({
      ownerId: owner.id,
      conversationId: shown.conversation.id,
      kind: 'resume',
      status: 'interrupted',
      interrupt: { type: 'approval', tool: 'delete_everything', args: {} },
      createdAt: new Date('2026-04-01T00:00:01Z'),
      finishedAt: new Date('2026-04-01T00:00:02Z'),
    });
    signIn(owner);
    const result = await answerApprovalsAction({ ids: [`chat:${shown.run.id}`], decision: { approved: true }, bulkKey: newKey() });
    expect(result).toMatchObject({ ok: true, data: { outcomes: [{ ok: false, code: 'already_answered' }] } });
    // What must not happen: the approval meant for "calculator" approving "delete_everything".
    expect((await runsOf(shown.conversation.id)).map((r) => r.id).sort()).toEqual([shown.run.id, newer.id].sort());
    expect(await inboxIds(owner.id)).toEqual([`chat:${newer.id}`]);
  });

  it(`refuses a flood: ${LIMITS.inbox.maxBulk} ids at most, one more is a validation error and nothing is answered; a foreign flood changes nothing`, async () => {
    const owner = await makeUser('cid');
    const stranger = await makeUser('dee');
    const theirs = await storedApprovals(stranger.id, LIMITS.inbox.maxBulk + 1);
    const ids = theirs.map((r) => `chat:${r.id}`);
    signIn(owner);
    const tooMany = await answerApprovalsAction({ ids, decision: { approved: true }, bulkKey: newKey() });
    expect(tooMany).toMatchObject({ ok: false, error: { code: 'validation_error', fields: { ids: `At most ${LIMITS.inbox.maxBulk} approvals at once` } } });

    const atLimit = await answerApprovalsAction({ ids: ids.slice(0, LIMITS.inbox.maxBulk), decision: { approved: true }, bulkKey: newKey() });
    expect(atLimit.ok).toBe(true);
    if (!atLimit.ok) throw new Error('the bulk at the limit was refused');
    expect(atLimit.data.outcomes).toHaveLength(LIMITS.inbox.maxBulk);
    expect(new Set(atLimit.data.outcomes.map((o) => (o.ok ? 'ok' : o.code)))).toEqual(new Set(['not_found']));
    // What must not happen: a run started in the stranger's chats by another account.
    const resumed = await getDb().select().from(schema.runs).where(eq(schema.runs.ownerId, stranger.id));
    expect(resumed.filter((r) => r.kind === 'resume')).toHaveLength(0);
    expect(await inboxIds(stranger.id)).toHaveLength(LIMITS.inbox.maxBulk);

    const dup = await answerApprovalsAction({ ids: [ids[0], ids[0]], decision: { approved: true }, bulkKey: newKey() });
    expect(dup).toMatchObject({ ok: false, error: { code: 'validation_error' } });
    const malformed = await answerApprovalsAction({ ids: ['run:1'], decision: { approved: 'yes' }, bulkKey: newKey() });
    expect(malformed).toMatchObject({ ok: false, error: { code: 'validation_error' } });
  });

  it('signed out: refused before anything is read', async () => {
    const owner = await makeUser('eve');
    const a = await storedApproval(owner.id, new Date('2026-05-01T00:00:00Z'));
    const result = await answerApprovalsAction({ ids: [`chat:${a.run.id}`], decision: { approved: true }, bulkKey: newKey() });
    expect(result).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    expect(await runsOf(a.conversation.id)).toHaveLength(1);
  });
});
