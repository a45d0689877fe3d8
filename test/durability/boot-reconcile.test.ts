import crypto from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { closeCheckpointer } from '@/server/agents/checkpointer';
import { createConversation } from '@/server/agents/runs';
import { readThread } from '@/server/agents/thread';
import { closeDb, getDb, schema, writeTx } from '@/server/db';
import { releaseServiceLock } from '@/server/db/service-lock';
import { runShutdownHooks } from '@/server/lifecycle';
import { startServerProcess } from '@/server/startup';
import { becomeNewProcess } from '../support/new-process';
import { recordMentions } from '@/server/teams/mentions';
import { getTeam } from '@/server/teams/teams';
import { makeAgents, makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';

type Listener = (...args: unknown[]) => void;
const SIGNALS = ['SIGTERM', 'SIGINT', 'exit'];
const listenersOf = (event: string) => process.listeners(event as NodeJS.Signals) as Listener[];
const listenersBefore = new Map(SIGNALS.map((event) => [event, listenersOf(event)]));

afterAll(async () => {
  // As the server stops: drain the scheduler, suspend the runs, release the database's service lock (Postgres).
  await runShutdownHooks();
  for (const event of SIGNALS) {
    for (const listener of listenersOf(event)) if (!listenersBefore.get(event)!.includes(listener)) process.removeListener(event, listener);
  }
  releaseServiceLock();
});

describe('server start-up reconciles what a crash left half-done', () => {
  it('appends a recorded @mention exactly once, finishes a half-created team, and the work then runs', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['Lead', 'Helper']);
    const [solo] = await makeAgents(alice.id, [`Solo-${crypto.randomUUID().slice(0, 4)}`]);
    const conversation = await createConversation(alice.id, solo!.id);
    // A mention recorded durably, then the process died before appending it to the thread.
    const mention = await recordMentions(alice.id, conversation.id, { memberIds: [team.members[0]!.id], text: '/reply from boot', messageKey: 'boot' });
    // A team whose row and roster were committed, then the process died before its member conversations.
    const [a, b] = await makeAgents(alice.id, ['X', 'Y'].map((n) => `${n}-${crypto.randomUUID().slice(0, 4)}`));
    const halfTeam = crypto.randomUUID();
    await writeTx((tx) => tx.insert(schema.teams).values({ id: halfTeam, ownerId: alice.id, requestId: 'half', name: 'Half', goal: 'g', status: 'creating', updatedAt: new Date() }));
    await writeTx((tx) => tx
      .insert(schema.teamMembers)
      .values([a!, b!].map((agent, i) => ({ id: crypto.randomUUID(), teamId: halfTeam, agentId: agent.id, agentName: agent.name, name: agent.name, position: i }))));
    closeCheckpointer();
    await closeDb();

    becomeNewProcess();
    await startServerProcess();

    // Start-up itself (before any page is opened) appended the message and finished the team.
    const lines = (await readThread(conversation.id)).messages.map((m) => `${m.getType()}:${String(m.content).split('\n')[0]}`);
    expect(lines.slice(0, 2)).toEqual(['human:/reply from boot', expect.stringMatching(/^ai:Queued a request to /)]);
    expect((await getTeam(alice.id, halfTeam)).status).toBe('ready');
    expect((await getTeam(alice.id, halfTeam)).members.every((m) => m.conversationId)).toBe(true);

    // The scheduler then runs the queued request and returns its receipt after the person's message.
    const receipt = await until(
      async () =>
        (await getDb()
          .select()
          .from(schema.jobs)
          .where(and(eq(schema.jobs.conversationId, conversation.id), eq(schema.jobs.kind, 'receipt'), eq(schema.jobs.status, 'completed'))))[0],
      15_000,
      'the receipt completes',
    );
    expect(receipt.parentId).toBe(mention.jobs[0]!.jobId);
    const after = (await readThread(conversation.id)).messages.map((m) => `${m.getType()}:${String(m.content).split('\n')[0]}`);
    expect(after.filter((l) => l === 'human:/reply from boot')).toHaveLength(1);
  });
});
