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

describe('scheduling view: a pass reads heads and admitted jobs, not the queue behind them', () => {
  /** The rows a pass needs, from every unfinished row (the oracle): each conversation's first, and every job past queued. */
  const oracleRows = (rows: { id: string; conversationId: string; status: string }[]) => {
    const seen = new Set<string>();
    return rows.filter((r) => {
      const head = !seen.has(r.conversationId);
      seen.add(r.conversationId);
      return head || r.status !== 'queued';
    });
  };

  it('builds the same view as one read over every unfinished job, over mixed states', async () => {
    const owners = [await makeUser('p'), await makeUser('q')];
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed % n);
    for (const owner of owners) {
      const { team } = await makeTeam(owner.id);
      for (let i = 0; i < 14; i++) await request(owner.id, team.id, team.members[rand(team.members.length)]!.id);
      // Admit some heads, park one waiting for a person, finish some: queues of different depths behind them.
      const jobs = await writeTx((tx) => tx.select().from(schema.jobs).where(eq(schema.jobs.teamId, team.id)).orderBy(schema.jobs.seq));
      for (const job of jobs) {
        const roll = rand(4);
        if (roll === 0) await admitJob(job.id);
        else if (roll === 1) await writeTx((tx) => tx.update(schema.jobs).set({ status: 'completed' }).where(eq(schema.jobs.id, job.id)));
      }
      const running = (await writeTx((tx) => tx.select().from(schema.jobs).where(eq(schema.jobs.status, 'running')))).filter((j) => j.teamId === team.id);
      if (running[0]) await writeTx((tx) => tx.update(schema.jobs).set({ status: 'waiting_input' }).where(eq(schema.jobs.id, running[0]!.id)));
    }

    const every = await loadSchedulingView({}, { everyUnfinished: true });
    const pass = await loadSchedulingView();
    // Something is queued behind a head, or the comparison below would prove nothing.
    expect(every.unfinished.length).toBeGreaterThan(oracleRows(every.unfinished).length);
    expect(every.queues.length).toBeGreaterThan(0);
    expect(every.activeCount).toBeGreaterThan(0);
    expect(pass.unfinished.map((r) => r.id)).toEqual(oracleRows(every.unfinished).map((r) => r.id));
    expect(pass.queues).toEqual(every.queues);
    expect(pass.heldSlots).toEqual(every.heldSlots);
    expect(pass.activeCount).toBe(every.activeCount);
    expect(pass.running).toEqual(every.running);
    expect(pass.heldTeams).toEqual(every.heldTeams);
  });
});
