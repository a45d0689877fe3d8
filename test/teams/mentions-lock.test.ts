import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { BaseMessage } from '@langchain/core/messages';
import * as mentionsRoute from '@/app/api/v1/conversations/[id]/mentions/route';
import * as messagesRoute from '@/app/api/v1/conversations/[id]/messages/route';
import { createConversation, start, wait } from '@/server/agents/runs';
import { readThread } from '@/server/agents/thread';
import { applyNote, recoverNotes } from '@/server/agents/thread-notes';
import { recoverRuns } from '@/server/agents/recovery';
import { getDb, schema, writeTx } from '@/server/db';
import { statement } from '@/server/db/statement';
import { startScheduler, stopScheduler } from '@/server/scheduler/runtime';
import { teamJobs } from '@/server/teams/scheduler-jobs';
import { recordMentions, sendMentions } from '@/server/teams/mentions';
import { makeUser } from '../support/users';
import { call, makeAgents, makeTeam } from '../support/teams';
import { until } from '../support/wait';

/**
 * Bug 3: an @mention used to check "busy", queue its jobs, then append the person's message to the thread with
 * no lock. Now the jobs and the message are one durable record (a note run holding the conversation's lock),
 * and the append happens under that lock, exactly once, also after a crash.
 */

const db = () => getDb();
const jobsFrom = async (conversationId: string) =>
  await db().select().from(schema.jobs).where(and(eq(schema.jobs.sourceConversationId, conversationId), eq(schema.jobs.kind, 'request')));
const notesOf = async (conversationId: string) =>
  await db().select().from(schema.runs).where(and(eq(schema.runs.conversationId, conversationId), eq(schema.runs.kind, 'note')));
const countRows = async (table: 'jobs' | 'runs' | 'shared_messages') => (await statement(`select count(*) as n from ${table}`).get() as { n: number }).n;
/** The thread as "type:first line", in order. */
const transcript = (messages: BaseMessage[]) => messages.map((m) => `${m.getType()}:${String(m.content).split('\n')[0]}`);
const occurrences = (lines: string[], line: string) => lines.filter((l) => l === line).length;

async function setup(label = 'alice') {
  const user = await makeUser(label);
  const { team } = await makeTeam(user.id, ['Research', 'Review']);
  const [solo] = await makeAgents(user.id, [`Solo-${crypto.randomUUID().slice(0, 6)}`]);
  const conversation = await createConversation(user.id, solo!.id);
  return { user, team, conversation };
}

describe('@mentions under the conversation lock', () => {
  // The scheduler is stopped here so member jobs stay queued: these tests look only at the source conversation.
  it('answers 404 for another owner’s conversation, busy or idle, and writes nothing', async () => {
    const { user: alice, conversation } = await setup('alice');
    const { user: bob, team: bobsTeam } = await setup('bob');
    const body = { memberIds: [bobsTeam.members[0]!.id], text: 'hi', messageKey: 'steal' };

    const idle = await call(mentionsRoute.POST, { method: 'POST', headers: bob.auth, body, params: { id: conversation.id } });
    expect(idle.status).toBe(404);

    // Busy: alice's own run is executing (it sleeps), which used to answer bob 409 and so reveal the conversation.
    const { run } = await start(alice.id, conversation.id, { text: '/sleep 400\n/reply done' }, { idempotencyKey: 'busy' });
    const before = { jobs: await countRows('jobs'), runs: await countRows('runs'), shared: await countRows('shared_messages') };
    const busy = await call(mentionsRoute.POST, { method: 'POST', headers: bob.auth, body: { ...body, messageKey: 'steal-2' }, params: { id: conversation.id } });
    expect(busy.status).toBe(404);
    expect(busy.body).toMatchObject({ error: { code: 'not_found' } });
    // Must not happen: a job queued for bob's team from alice's conversation, or a note in her thread.
    expect({ jobs: await countRows('jobs'), runs: await countRows('runs'), shared: await countRows('shared_messages') }).toEqual(before);
    expect(await jobsFrom(conversation.id)).toHaveLength(0);
    expect((await wait(run.id, 10_000))?.status).toBe('success');
    expect(await notesOf(conversation.id)).toHaveLength(0);
  });

  it('refuses a mention while a run is executing, with nothing queued', async () => {
    const { user, team, conversation } = await setup();
    const { run } = await start(user.id, conversation.id, { text: '/sleep 400\n/reply done' }, { idempotencyKey: 'busy' });
    const refused = await call(mentionsRoute.POST, {
      method: 'POST',
      headers: user.auth,
      body: { memberIds: [team.members[0]!.id], text: 'hi', messageKey: 'while-busy' },
      params: { id: conversation.id },
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'conversation_busy' } });
    expect(await jobsFrom(conversation.id)).toHaveLength(0);
    expect(await notesOf(conversation.id)).toHaveLength(0);
    expect((await wait(run.id, 10_000))?.status).toBe('success');
  });

  it('never forks the thread: a message sent while the mention is being appended waits its turn', async () => {
    const { user, team, conversation } = await setup();
    const mention = sendMentions(user.id, conversation.id, { memberIds: [team.members[0]!.id], text: 'please look', messageKey: 'm-1' });
    // sendMentions has recorded the mention and is now appending it (awaiting the checkpointer): a message arrives.
    // Before the fix it started a run here, writing to the thread beside the append.
    await expect(start(user.id, conversation.id, { text: '/reply first answer' }, { idempotencyKey: 'msg-1' })).rejects.toThrow(
      expect.objectContaining({ code: 'conversation_busy' }),
    );
    await mention;

    const after = await call(messagesRoute.POST, { method: 'POST', headers: user.auth, body: { text: '/reply second answer', idempotencyKey: 'msg-2' }, params: { id: conversation.id } });
    expect(after.status).toBe(202);
    expect((await wait((after.body.run as { id: string }).id, 10_000))?.status).toBe('success');

    // One linear history: the mention and its note, then the message and its reply, each exactly once.
    const lines = transcript((await readThread(conversation.id)).messages);
    const label = `${team.name} / ${team.members[0]!.name}`;
    expect(lines).toEqual(['human:please look', `ai:Queued a request to ${label}. Each result will be returned to this conversation.`, 'human:/reply second answer', 'ai:second answer']);
  });

  it('serializes a burst of concurrent mentions and messages into one history with each accepted message once', async () => {
    const { user, team, conversation } = await setup();
    const attempts = Array.from({ length: 6 }, (_, i) =>
      i % 2 === 0
        ? call(mentionsRoute.POST, { method: 'POST', headers: user.auth, body: { memberIds: [team.members[i % 2]!.id], text: `mention ${i}`, messageKey: `k-${i}` }, params: { id: conversation.id } }).then((r) => ({ kind: 'mention' as const, i, r }))
        : call(messagesRoute.POST, { method: 'POST', headers: user.auth, body: { text: `/reply answer ${i}`, idempotencyKey: `msg-${i}` }, params: { id: conversation.id } }).then((r) => ({ kind: 'message' as const, i, r })),
    );
    const outcomes = await Promise.all(attempts);
    const accepted = outcomes.filter((o) => o.r.status === 201 || o.r.status === 202);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(outcomes.filter((o) => !accepted.includes(o)).every((o) => o.r.status === 409)).toBe(true);
    for (const o of accepted) if (o.kind === 'message') await wait((o.r.body.run as { id: string }).id, 10_000);
    // A refused mention queued nothing.
    const acceptedMentions = accepted.filter((o) => o.kind === 'mention').map((o) => `mention ${o.i}`);
    expect((await jobsFrom(conversation.id)).map((j) => j.text).sort()).toEqual([...acceptedMentions].sort());

    const lines = transcript((await readThread(conversation.id)).messages);
    for (const o of accepted) {
      expect(occurrences(lines, o.kind === 'mention' ? `human:mention ${o.i}` : `human:/reply answer ${o.i}`)).toBe(1);
    }
    expect(lines.filter((l) => l.startsWith('human:'))).toHaveLength(accepted.length);
  });

  it('resends by the same message key return the same jobs and append once, also when concurrent', async () => {
    const { user, team, conversation } = await setup();
    const input = { memberIds: team.members.map((m) => m.id), text: 'both of you', messageKey: 'same' };
    const [a, b] = await Promise.all([sendMentions(user.id, conversation.id, input), sendMentions(user.id, conversation.id, input)]);
    const c = await sendMentions(user.id, conversation.id, input);
    expect(b.jobs.map((j) => j.jobId)).toEqual(a.jobs.map((j) => j.jobId));
    expect(c.jobs.map((j) => j.jobId)).toEqual(a.jobs.map((j) => j.jobId));
    expect([a.created, b.created, c.created].filter(Boolean)).toHaveLength(1);
    expect(await jobsFrom(conversation.id)).toHaveLength(2);
    expect(await notesOf(conversation.id)).toHaveLength(1);
    const lines = transcript((await readThread(conversation.id)).messages);
    expect(occurrences(lines, 'human:both of you')).toBe(1);
    expect(lines.filter((l) => l.startsWith('ai:Queued 2 requests'))).toHaveLength(1);
  });
});

describe('@mentions across a crash', () => {
  it('a crash after the durable record: start-up appends the message exactly once, the jobs stay intact', async () => {
    const { user, team, conversation } = await setup();
    // The process records the mention (one transaction) and dies before appending it to the thread.
    const recorded = await recordMentions(user.id, conversation.id, { memberIds: [team.members[1]!.id], text: 'after the crash', messageKey: 'crash-1' });
    expect((await readThread(conversation.id)).messages).toHaveLength(0);
    const jobsBefore = await jobsFrom(conversation.id);
    expect(jobsBefore.map((j) => j.id)).toEqual(recorded.jobs.map((j) => j.jobId));

    // The lock survives the crash: nothing else may write to the thread before the note is in it.
    await expect(start(user.id, conversation.id, { text: '/reply too early' }, { idempotencyKey: 'early' })).rejects.toThrow(/busy/);

    // Start-up reconciliation, as startServerProcess() runs it (notes, then runs), twice.
    const report = await recoverNotes();
    expect(report).toEqual([{ runId: recorded.noteRunId, status: 'success' }]);
    await recoverRuns();
    expect(await recoverNotes()).toEqual([]);

    const { messages } = await readThread(conversation.id);
    const human = messages.filter((m) => m.getType() === 'human');
    expect(human.map((m) => m.content)).toEqual(['after the crash']);
    expect(human[0]!.additional_kwargs.ensemble).toMatchObject({ kind: 'mention', jobIds: recorded.jobs.map((j) => j.jobId) });
    expect(await jobsFrom(conversation.id)).toEqual(jobsBefore);
    expect((await notesOf(conversation.id)).map((r) => r.status)).toEqual(['success']);
    // The conversation is free again.
    const { run } = await start(user.id, conversation.id, { text: '/reply next' }, { idempotencyKey: 'next' });
    expect((await wait(run.id, 10_000))?.status).toBe('success');
  });

  it('a crash after the append but before the record was finished: recovery does not append again', async () => {
    const { user, team, conversation } = await setup();
    const recorded = await recordMentions(user.id, conversation.id, { memberIds: [team.members[0]!.id], text: 'appended once', messageKey: 'crash-2' });
    await applyNote(recorded.noteRunId);
    // Undo only the row's finish, as if the process died between the checkpoint write and that commit.
    await writeTx((tx) => tx.update(schema.runs).set({ status: 'pending', finishedAt: null }).where(eq(schema.runs.id, recorded.noteRunId)));

    await recoverNotes();
    const lines = transcript((await readThread(conversation.id)).messages);
    expect(occurrences(lines, 'human:appended once')).toBe(1);
    expect(lines).toHaveLength(2);
    expect((await notesOf(conversation.id)).map((r) => r.status)).toEqual(['success']);
  });

  it('a resend by the same key after a crash appends the recorded message once and queues nothing new', async () => {
    const { user, team, conversation } = await setup();
    const input = { memberIds: [team.members[0]!.id], text: 'resent', messageKey: 'crash-3' };
    const recorded = await recordMentions(user.id, conversation.id, input);
    const resent = await sendMentions(user.id, conversation.id, input);
    expect(resent.created).toBe(false);
    expect(resent.jobs.map((j) => j.jobId)).toEqual(recorded.jobs.map((j) => j.jobId));
    expect(occurrences(transcript((await readThread(conversation.id)).messages), 'human:resent')).toBe(1);
    expect(await jobsFrom(conversation.id)).toHaveLength(1);
  });
});

describe('@mentions with the scheduler running', () => {
  beforeAll(() => startScheduler(teamJobs, { tickMs: 30 }));
  afterAll(async () => {
    await stopScheduler();
  });

  it('the receipt comes back after the person’s message, never before it', async () => {
    const { user, team, conversation } = await setup();
    const recorded = await recordMentions(user.id, conversation.id, { memberIds: [team.members[0]!.id], text: '/reply quick', messageKey: 'order' });
    // The member's request may finish at once, but its receipt can't enter this thread while the note holds the lock.
    const request = await until(async () => (await db().select().from(schema.jobs).where(eq(schema.jobs.id, recorded.jobs[0]!.jobId)))[0]?.status === 'completed', 10_000, 'the request completes');
    expect(request).toBe(true);
    expect((await readThread(conversation.id)).messages).toHaveLength(0);
    await recoverNotes();
    await until(async () => (await db().select().from(schema.jobs).where(and(eq(schema.jobs.conversationId, conversation.id), eq(schema.jobs.kind, 'receipt'))))[0]?.status === 'completed', 10_000, 'the receipt completes');
    const lines = transcript((await readThread(conversation.id)).messages);
    expect(lines[0]).toBe('human:/reply quick');
    expect(lines[1]).toMatch(/^ai:Queued a request/);
    expect(lines.slice(2).some((l) => l.startsWith('ai:Received completed result'))).toBe(true);
  });
});
