import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import { agentCreateSchema } from '@/lib/schemas/agent';
import { createAgent } from '@/server/agents/catalog';
import { cancelBatch } from '@/server/batches/control';
import { admitItem } from '@/server/batches/items';
import { createBatch } from '@/server/batches/store';
import { getDb, schema, writeTx } from '@/server/db';
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

describe('scheduling view: the queued items a running batch offers', () => {
  /** Each item candidate as "batch letter:index", in the order the view offers them. */
  const offered = async (names: Map<string, string>) =>
    (await loadSchedulingView()).queues.flatMap((q) => q.candidates.filter((c) => c.kind === 'item').map((c) => names.get(c.itemId!)!));

  it('offers each running batch its first concurrency − running queued items in index order, at most maxConcurrency of many, none of a cancelled batch', async () => {
    const alice = await makeUser('batches');
    const agent = await createAgent(alice.id, agentCreateSchema.parse({ name: 'Offered' }));
    const make = async (count: number, concurrency: number) =>
      (
        await createBatch(
          alice.id,
          { target: { agentId: agent.id }, template: '/reply {{v}}', columns: ['v'], items: Array.from({ length: count }, (_, i) => ({ v: String(i) })), concurrency },
          { origin: 'person' },
        )
      ).batch.id;
    const max = LIMITS.batch.maxConcurrency;
    const small = await make(10, 3);
    // At the limit: concurrency maxConcurrency with more queued than that (one past and beyond) offers exactly maxConcurrency.
    const wide = await make(max + 4, max);
    const gone = await make(4, 2);
    await cancelBatch(alice.id, gone);
    const names = new Map<string, string>();
    for (const [letter, id] of [['s', small], ['w', wide], ['g', gone]] as const) {
      for (const item of await getDb().select().from(schema.batchItems).where(eq(schema.batchItems.batchId, id))) names.set(item.id, `${letter}:${item.idx}`);
    }
    const idOf = (name: string) => [...names].find(([, n]) => n === name)![0];

    expect(await offered(names)).toEqual(['s:0', 's:1', 's:2', ...Array.from({ length: max }, (_, i) => `w:${i}`)]);

    // Two of the small batch's items running (the first and the third): one more of its own, the next queued by index.
    expect(await writeTx(() => admitItem(idOf('s:0')))).toBe(true);
    expect(await writeTx(() => admitItem(idOf('s:2')))).toBe(true);
    const view = await loadSchedulingView();
    expect(view.batchItems.map((i) => names.get(i.itemId)).sort()).toEqual(['s:0', 's:2']);
    expect(await offered(names)).toEqual(['s:1', ...Array.from({ length: max }, (_, i) => `w:${i}`)]);

    // Its concurrency reached: it offers nothing, the other batch still all it may.
    expect(await writeTx(() => admitItem(idOf('s:1')))).toBe(true);
    expect(await offered(names)).toEqual(Array.from({ length: max }, (_, i) => `w:${i}`));
  });
});
