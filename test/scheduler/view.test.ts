import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { schema, writeTx } from '@/server/db';
import { loadSchedulingView } from '@/server/scheduler/view';
import { admitJob } from '@/server/teams/execution';
import { sendRequest } from '@/server/teams/requests';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';

async function request(ownerId: string, teamId: string, memberId: string) {
  const { jobs } = await sendRequest(ownerId, teamId, { memberIds: [memberId], text: '/reply ok', draftKey: crypto.randomUUID() });
  return jobs[0]!.id;
}

describe('scheduling view: slots held per owner (input to the shared cap)', () => {
  it('counts running jobs per owner, not waiting ones, and lists no job blocked behind its conversation head', async () => {
    const a = await makeUser('a');
    const b = await makeUser('b');
    const { team: teamA } = await makeTeam(a.id);
    const { team: teamB } = await makeTeam(b.id);
    const [first, second] = teamA.members;
    const headA = await request(a.id, teamA.id, first!.id);
    const blockedA = await request(a.id, teamA.id, first!.id); // same conversation: behind headA
    const otherA = await request(a.id, teamA.id, second!.id);
    const jobB = await request(b.id, teamB.id, teamB.members[0]!.id);
    expect(await admitJob(headA)).toBe(true);
    expect(await admitJob(otherA)).toBe(true);

    const view = await loadSchedulingView();
    expect(Object.fromEntries(view.heldSlots)).toEqual({ [a.id]: 2 });
    const listed = Object.fromEntries(view.queues.map((q) => [q.ownerId, q.candidates.map((c) => c.jobId)]));
    // A's third job waits behind its running head: not admissible, so A is present only through its held slots.
    expect(listed).toEqual({ [b.id]: [jobB] });
    expect(listed[a.id]).toBeUndefined();
    expect(blockedA).not.toBe(headA);

    // A head waiting for a person's answer holds no slot, and still blocks its conversation.
    await writeTx(async (tx) => {
      await tx.update(schema.jobs).set({ status: 'waiting_input' }).where(eq(schema.jobs.id, headA));
    });
    const waiting = await loadSchedulingView();
    expect(Object.fromEntries(waiting.heldSlots)).toEqual({ [a.id]: 1 });
    expect(waiting.queues.flatMap((q) => q.candidates.map((c) => c.jobId))).toEqual([jobB]);
  });
});
