import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { GET as inboxRoute } from '@/app/api/v1/inbox/route';
import { LIMITS } from '@/lib/limits';
import { resume } from '@/server/agents/runs';
import { getDb, schema, writeTx } from '@/server/db';
import { activeEngine } from '@/server/db/active-engine';
import { databaseEngine } from '@/server/db/engine';
import { readInbox } from '@/server/inbox/read';
import { INBOX_SOURCES } from '@/server/inbox/sources';
import { cancelJob } from '@/server/teams/cancel';
import { sendRequest } from '@/server/teams/requests';
import { conversationWith, finished, send } from '../agents/helpers';
import { settled, withScheduler } from '../support/scheduler';
import { call, makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { answeredAfter, newKey, storedApproval, storedApprovals } from './helpers';

withScheduler();

const page = (ownerId: string, limit: number = LIMITS.inbox.defaultLimit, after?: string) => readInbox(ownerId, { limit, ...(after ? { after } : {}) });

describe('the inbox read', () => {
  it("lists every waiting question and approval of the owner's chats and teams, oldest first, each with where it waits", async () => {
    const owner = await makeUser('ann');
    const careful = await conversationWith(owner.id, { name: 'Careful', toolGroups: ['utility'], approvalTools: ['calculator'] });
    await send(owner.id, careful.conversation.id, '/call calculator {"expression":"6*7"}');
    const curious = await conversationWith(owner.id, { name: 'Curious', toolGroups: ['clarify'] });
    await send(owner.id, curious.conversation.id, '/ask Which colour, 红 or 🟦?');
    const { team } = await makeTeam(owner.id, ['Calc', 'Asker'], { toolGroups: ['utility', 'clarify'], approvalTools: ['calculator'] });
    const [calc, asker] = team.members;
    const approval = (await sendRequest(owner.id, team.id, { memberIds: [calc!.id], text: '/call calculator {"expression":"1+1"}', draftKey: 'a' })).jobs[0]!;
    expect((await settled(approval.id)).status).toBe('waiting_input');
    const question = (await sendRequest(owner.id, team.id, { memberIds: [asker!.id], text: '/ask Deadline?', draftKey: 'q' })).jobs[0]!;
    expect((await settled(question.id)).status).toBe('waiting_input');

    const inbox = await page(owner.id);
    expect(inbox.total).toBe(4);
    expect(inbox.nextCursor).toBeNull();
    expect(inbox.items.map((i) => i.where.source)).toEqual(['chat', 'chat', 'team', 'team']);
    const [a, b, c, d] = inbox.items;
    expect(a).toMatchObject({
      where: { source: 'chat', conversationId: careful.conversation.id, agentName: 'Careful' },
      waiting: { type: 'interrupt', payload: { type: 'approval', tool: 'calculator', args: { expression: '6*7' } } },
    });
    expect(b).toMatchObject({
      where: { source: 'chat', conversationId: curious.conversation.id, agentName: 'Curious' },
      waiting: { type: 'clarification', question: 'Which colour, 红 or 🟦?' },
    });
    expect(c).toMatchObject({
      id: `team:${approval.id}`,
      where: { source: 'team', teamId: team.id, teamName: team.name, jobId: approval.id, memberId: calc!.id, memberName: calc!.name },
      waiting: { type: 'interrupt', payload: { type: 'approval', tool: 'calculator' } },
    });
    expect(d).toMatchObject({ id: `team:${question.id}`, where: { memberName: asker!.name }, waiting: { type: 'clarification', question: 'Deadline?' } });
    const times = inbox.items.map((i) => Date.parse(i.since));
    expect([...times].sort((x, y) => x - y)).toEqual(times);

    // Answered in its chat, an approval leaves the inbox (its run stays 'interrupted', no longer the newest).
    const answered = await resume(owner.id, careful.conversation.id, { approved: false }, { idempotencyKey: newKey() });
    await finished(answered.run.id);
    expect((await page(owner.id)).items.map((i) => i.id)).toEqual([b!.id, c!.id, d!.id]);
    // A team request cancelled while it waits leaves it too (its run stays 'interrupted').
    await cancelJob(owner.id, team.id, question.id);
    expect((await page(owner.id)).items.map((i) => i.id)).toEqual([b!.id, c!.id]);

    // Another owner sees none of it, through the read and through the route.
    const stranger = await makeUser('stranger');
    expect(await page(stranger.id)).toEqual({ items: [], total: 0, nextCursor: null });
    const viaRoute = await call(inboxRoute, { url: 'http://localhost/api/v1/inbox', headers: stranger.auth });
    expect(viaRoute.status).toBe(200);
    expect(viaRoute.body).toEqual({ items: [], total: 0, nextCursor: null });
  });

  it('names the chat’s agent, not a member, for a result returned to a chat whose agent waits on its reply', async () => {
    // An @mention from an ordinary chat: the member's result returns to that chat as a receipt job with no member, and
    // the chat's own agent replies to it; stopped on an approval there, the Inbox called it "A member" of the team.
    const owner = await makeUser('cid');
    const chat = await conversationWith(owner.id, { name: 'Careful 慎重 🧐', toolGroups: ['utility'], approvalTools: ['calculator'] });
    const { team } = await makeTeam(owner.id, ['Calc', 'Asker'], { toolGroups: ['utility'], approvalTools: ['calculator'] });
    const memberJob = (await sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/call calculator {"expression":"1+1"}', draftKey: 'm' })).jobs[0]!;
    expect((await settled(memberJob.id)).status).toBe('waiting_input');
    const receiptId = crypto.randomUUID();
    const approval = { type: 'interrupt', payload: { type: 'approval', tool: 'calculator', args: { expression: '2*3' } } };
    await writeTx((tx) =>
      tx.insert(schema.jobs).values({
        id: receiptId, teamId: team.id, ownerId: owner.id, kind: 'receipt', memberId: null, conversationId: chat.conversation.id, parentId: memberJob.id,
        rootId: memberJob.id, status: 'waiting_input', waiting: approval, text: 'the result', requestKey: `receipt:${receiptId}`, updatedAt: new Date(),
      }),
    );

    const items = (await page(owner.id)).items;
    expect(items.find((i) => i.id === `team:${receiptId}`)).toMatchObject({
      where: { source: 'team', teamId: team.id, memberId: null, memberName: null, agentName: 'Careful 慎重 🧐', conversationId: chat.conversation.id },
      waiting: approval,
    });
    expect(items.find((i) => i.id === `team:${memberJob.id}`)).toMatchObject({ where: { memberName: team.members[0]!.name, agentName: null } });
    // Another owner sees neither.
    expect((await page((await makeUser('dee')).id)).total).toBe(0);
  });

  it('leaves out an answered interrupt and a delegated child', async () => {
    const owner = await makeUser('bea');
    const { conversation } = await storedApproval(owner.id, new Date('2026-02-01T00:00:00Z'));
    await answeredAfter(owner.id, conversation.id, new Date('2026-02-01T00:00:01Z'));
    // A delegated child's run that stopped anyway: nothing can answer it (ADR 024), so it must not be listed.
    const child = await storedApproval(owner.id, new Date('2026-02-01T00:00:02Z'));
    await writeTx((tx) => tx.update(schema.runs).set({ parentRunId: 'parent', depth: 1 }).where(eq(schema.runs.id, child.run.id)));
    expect((await getDb().select().from(schema.runs).where(eq(schema.runs.id, child.run.id)))[0]!.status).toBe('interrupted');
    expect(await page(owner.id)).toEqual({ items: [], total: 0, nextCursor: null });
  });

  it(`pages at the limit (${LIMITS.inbox.maxLimit}) and one past it, oldest first, without repeating or skipping`, async () => {
    const owner = await makeUser('cid');
    const runs = await storedApprovals(owner.id, LIMITS.inbox.maxLimit);
    const full = await page(owner.id, LIMITS.inbox.maxLimit);
    expect(full.items.map((i) => i.id)).toEqual(runs.map((r) => `chat:${r.id}`));
    expect(full.nextCursor).toBeNull();
    expect(full.total).toBe(LIMITS.inbox.maxLimit);

    const [extra] = await storedApprovals(owner.id, 1, new Date('2026-06-01T00:00:00Z'));
    const first = await page(owner.id, LIMITS.inbox.maxLimit);
    expect(first.items).toHaveLength(LIMITS.inbox.maxLimit);
    expect(first.total).toBe(LIMITS.inbox.maxLimit + 1);
    expect(first.nextCursor).not.toBeNull();
    const second = await page(owner.id, LIMITS.inbox.maxLimit, first.nextCursor!);
    expect(second.items.map((i) => i.id)).toEqual([`chat:${extra!.id}`]);
    expect(second.nextCursor).toBeNull();

    // Small pages walk the same order.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const p = await page(owner.id, 7, cursor);
      seen.push(...p.items.map((i) => i.id));
      cursor = p.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([...runs, extra!].map((r) => `chat:${r.id}`));
  });

  it('orders items that began waiting in the same millisecond by source, then id', async () => {
    const owner = await makeUser('dee');
    const at = new Date('2026-03-01T00:00:00Z');
    const made = [await storedApproval(owner.id, at), await storedApproval(owner.id, at), await storedApproval(owner.id, at)];
    const ids = made.map((m) => `chat:${m.run.id}`).sort();
    expect((await page(owner.id)).items.map((i) => i.id)).toEqual(ids);
    const first = await page(owner.id, 1);
    const rest = await page(owner.id, 2, first.nextCursor!);
    expect([...first.items, ...rest.items].map((i) => i.id)).toEqual(ids);
  });

  it('the route checks its query: limit 1 to the maximum, one past is refused, a forged cursor is refused, signed out is 401', async () => {
    const owner = await makeUser('eve');
    const at = (q: string) => call(inboxRoute, { url: `http://localhost/api/v1/inbox${q}`, headers: owner.auth });
    expect((await at(`?limit=${LIMITS.inbox.maxLimit}`)).status).toBe(200);
    expect((await at('?limit=1')).status).toBe(200);
    const past = await at(`?limit=${LIMITS.inbox.maxLimit + 1}`);
    expect(past.status).toBe(422);
    expect(past.body).toMatchObject({ error: { fields: { limit: `Must be at most ${LIMITS.inbox.maxLimit}` } } });
    expect((await at('?limit=0')).status).toBe(422);
    expect((await at('?after=not-a-cursor')).status).toBe(422);
    expect((await call(inboxRoute, { url: 'http://localhost/api/v1/inbox' })).status).toBe(401);
  });

  it.runIf(databaseEngine() === 'sqlite')('SQLite: each source reads through its partial index, never by scanning runs or jobs', () => {
    const engine = activeEngine();
    if (engine.kind !== 'sqlite') throw new Error('SQLite only');
    for (const source of INBOX_SOURCES) {
      const plan = engine.sqlite.reader.$client.prepare(`explain query plan ${source.sql}`).all('owner') as Array<{ detail: string }>;
      const details = plan.map((p) => p.detail);
      // What must not happen: a full scan of runs, jobs or batch items (every owner's history) to find what waits.
      for (const d of details) expect(d).not.toMatch(/^SCAN (runs|jobs|batch_items|batches)\b/);
      const index = {
        chat: /runs USING INDEX runs_interrupted_chat_owner_idx/,
        team: /jobs USING INDEX jobs_waiting_owner_idx/,
        batch: /batch_items USING INDEX batch_items_waiting_owner_idx/,
      }[source.source];
      expect(details.join('\n')).toMatch(index!);
    }
  });
});
