import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { compactionsOf } from '@/server/agents/compaction/store';
import { contentText, ensembleMeta } from '@/server/agents/messages';
import { readThread } from '@/server/agents/thread';
import { schema, writeTx } from '@/server/db';
import { sendRequest } from '@/server/teams/requests';
import { eventsOf, ofType } from '../observe/helpers';
import { settled, withScheduler } from '../support/scheduler';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { ECHO_GROUP, filler, registerEchoTool } from './helpers';

registerEchoTool();
withScheduler();

describe('team job attribution with a compacted member conversation', () => {
  it('a job whose own request is summarized between the request and its result still gets its member’s answer; the next job too', async () => {
    const alice = await makeUser('alice');
    const { team, agents } = await makeTeam(alice.id, ['Lead', 'Worker']);
    const worker = team.members[1]!;
    // A low threshold, and a tool whose result is as long as the request asks.
    await writeTx((tx) => tx.update(schema.agents).set({ compactAtTokens: 1_000, toolGroups: [ECHO_GROUP] }).where(eq(schema.agents.id, agents[1]!.id)));

    const [first] = (await sendRequest(alice.id, team.id, { memberIds: [worker.id], text: `/call echo {"text":"${filler(700)}"}`, draftKey: 'first' })).jobs;
    const done = await settled(first!.id);
    expect(done.status).toBe('completed');
    const thread = (await readThread(worker.conversationId!)).messages;
    const request = thread.find((m) => ensembleMeta(m)?.jobId === first!.id)!;
    expect(request.getType()).toBe('human');
    // The compaction happened inside this job's run and took the job's own request out of the model's input…
    const [compaction] = ofType(await eventsOf(done.runId!), 'compaction');
    expect(compaction!.removed.map((r) => r.id)).toContain(request.id);
    // …while the thread kept it, so the result is the member's answer after it.
    expect(thread.map((m) => m.id)).toContain(request.id);
    expect(done.result).toBe(contentText(thread.at(-1)!.content));
    expect(done.result).toBe(`${agents[1]!.name} received: Summary of 1 earlier message:`);

    // The next request is read by the model after the summary; its answer is attributed to it, not to the first.
    const [second] = (await sendRequest(alice.id, team.id, { memberIds: [worker.id], text: '/reply Second done', draftKey: 'second' })).jobs;
    const next = await settled(second!.id);
    expect(next).toMatchObject({ status: 'completed', result: 'Second done' });
    expect((await compactionsOf(worker.conversationId!)).length).toBeGreaterThanOrEqual(1);
    const after = (await readThread(worker.conversationId!)).messages;
    expect(after.slice(0, thread.length).map((m) => m.id)).toEqual(thread.map((m) => m.id));
  });
});
