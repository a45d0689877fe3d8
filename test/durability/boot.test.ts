import { afterAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { closeCheckpointer } from '@/server/agents/checkpointer';
import { startRun, type StartInput } from '@/server/agents/runs';
import { resumeRunLaunches, suspendActiveRuns } from '@/server/agents/suspend';
import { readThread } from '@/server/agents/thread';
import { closeDb, getDb, schema } from '@/server/db';
import { releaseServiceLock } from '@/server/db/service-lock';
import { runShutdownHooks } from '@/server/lifecycle';
import { startServerProcess } from '@/server/startup';
import { becomeNewProcess } from '../support/new-process';
import { admitJob } from '@/server/teams/execution';
import { sendRequest } from '@/server/teams/requests';
import { scriptAgent } from '../support/scripts';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';

type Listener = (...args: unknown[]) => void;
const SIGNALS = ['SIGTERM', 'SIGINT', 'exit'];
const listenersOf = (event: string) => process.listeners(event as NodeJS.Signals) as Listener[];
const listenersBefore = new Map(SIGNALS.map((event) => [event, listenersOf(event)]));
const job = async (id: string) => (await getDb().select().from(schema.jobs).where(eq(schema.jobs.id, id)))[0]!;

afterAll(async () => {
  // As the server stops: drain the scheduler, suspend the runs, release the database's service lock (Postgres).
  await runShutdownHooks();
  // Leave this test worker's signal handling as it was.
  for (const event of SIGNALS) {
    for (const listener of listenersOf(event)) if (!listenersBefore.get(event)!.includes(listener)) process.removeListener(event, listener);
  }
  releaseServiceLock();
});

describe('server start-up', () => {
  it('continues a run left by a dead process with the team tools available, without anyone opening a page', async () => {
    const alice = await makeUser('alice');
    const { team, agents } = await makeTeam(alice.id, ['Lead', 'Helper']);
    const [lead, helper] = team.members;
    await scriptAgent(agents[1]!.id, '/reply helped'); // the owner scripts Helper; a peer's directives are never obeyed
    const args = JSON.stringify({ member: helper!.name, text: 'help please', request_id: 'boot-1' });
    const sent = (await sendRequest(alice.id, team.id, { memberIds: [lead!.id], text: `/call send_member ${args}\n/reply asked`, draftKey: 'boot' })).jobs[0]!;

    // The previous process admitted the job and created its run row, then died before executing it.
    expect(await admitJob(sent.id)).toBe(true);
    await suspendActiveRuns();
    const admitted = await job(sent.id);
    await startRun(admitted.conversationId, admitted.frozenInput as StartInput, { idempotencyKey: admitted.runKey!, context: { teamId: team.id, memberId: lead!.id, jobId: sent.id } });
    closeCheckpointer();
    await closeDb();
    resumeRunLaunches();

    becomeNewProcess();
    await startServerProcess();

    await until(async () => (await job(sent.id)).status === 'completed', 15_000, 'the request completes');
    expect((await job(sent.id)).result).toBe('asked');
    const handoff = await until(
      async () => (await getDb().select().from(schema.jobs).where(eq(schema.jobs.parentId, sent.id)))[0],
      5_000,
      'the handoff is queued',
    );
    // Read again each time: the receipt is linked when the handoff finishes, after the row above was read.
    await until(
      async () => {
        const current = await job(handoff.id);
        return current.status === 'completed' && !!current.receiptJobId && (await job(current.receiptJobId))?.status === 'completed';
      },
      15_000,
      'handoff and receipt complete',
    );
    expect((await job(handoff.id)).result).toBe('helped');
    const { messages } = await readThread(lead!.conversationId!);
    const toolResult = messages.find((m) => m.getType() === 'tool');
    expect(JSON.parse(String(toolResult?.content))).toMatchObject({ id: handoff.id, status: 'queued' });
  }, 60_000);
});
