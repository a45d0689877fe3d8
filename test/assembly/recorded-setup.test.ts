import crypto from 'node:crypto';
import { tool } from '@langchain/core/tools';
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import type { AssemblyDescriptor } from '@/lib/types/assembly';
import { closeCheckpointer } from '@/server/agents/checkpointer';
import { recoverRuns } from '@/server/agents/recovery';
import { activeRuns } from '@/server/agents/run-events';
import { getState, resume, start } from '@/server/agents/runs';
import { resumeRunLaunches, suspendActiveRuns } from '@/server/agents/suspend';
import { registerToolGroup } from '@/server/agents/tools/registry';
import { closeDb, getDb, schema, writeTx } from '@/server/db';
import type { Agent, Run } from '@/server/db/schema';
import { conversationWith, finished, send, until } from '../agents/helpers';
import { makeUser } from '../support/users';

type Stored = { descriptor: AssemblyDescriptor; changes: unknown[] | null };
const row = async (id: string): Promise<Run> => (await getDb().select().from(schema.runs).where(eq(schema.runs.id, id)))[0]!;
const assemblyOf = async (id: string) => (await row(id)).assembly as Stored;
const editAgent = (id: string, set: Partial<Agent>) => writeTx((tx) => tx.update(schema.agents).set({ ...set, updatedAt: new Date() }).where(eq(schema.agents.id, id)));

// The edit every test makes while a run is under way: a model this machine can't reach (no key), other instructions,
// and no tools. A run rebuilt from the catalog would fail on the model, or lose the tool it was calling.
const EDIT: Partial<Agent> = { model: 'openai:gpt-4o-mini', instructions: 'Edited while the run was under way', toolGroups: [], approvalTools: [] };

const savedKey = process.env.OPENAI_API_KEY;
afterEach(() => {
  if (savedKey === undefined) delete process.env.OPENAI_API_KEY;
  else process.env.OPENAI_API_KEY = savedKey;
});

describe('a continued run runs with the setup recorded at its start, never the catalog as edited since (seed 000)', () => {
  it('a run continued after a restart keeps its model, tools and instructions', async () => {
    delete process.env.OPENAI_API_KEY;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    registerToolGroup('test_recorded_slow', () => [
      tool(
        async () => {
          calls++;
          await gate;
          return 'slow done';
        },
        { name: 'recorded_slow', description: 'waits for the test', schema: z.object({}) },
      ),
    ]);
    const alice = await makeUser('alice');
    const { agent, conversation } = await conversationWith(alice.id, { name: 'Worker', toolGroups: ['test_recorded_slow'] });
    const { run } = await start(alice.id, conversation.id, { text: '/call recorded_slow {}' }, { idempotencyKey: crypto.randomUUID() });
    await until(async () => calls === 1);
    const before = await assemblyOf(run.id);
    // The process stops mid-tool; the agent is edited before the next start continues the run.
    await suspendActiveRuns(50);
    release();
    await until(async () => !activeRuns().has(run.id));
    resumeRunLaunches();
    await writeTx((tx) => tx.update(schema.runs).set({ status: 'running', finishedAt: null, error: null }).where(eq(schema.runs.id, run.id)));
    await editAgent(agent.id, EDIT);
    closeCheckpointer();
    await closeDb();

    expect(await recoverRuns()).toEqual([{ runId: run.id, action: 'continued' }]);
    const done = await finished(run.id);
    // Must not happen: the continued run built from the edited agent (it would fail: "Model openai:… is not configured").
    expect(done).toMatchObject({ status: 'success', error: null });
    expect((await assemblyOf(run.id)).descriptor).toEqual(before.descriptor);
    const { messages } = await getState(alice.id, conversation.id);
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', text: 'Worker: done\n[recorded_slow] slow done' });
  });

  it('a resume after an approval goes on with the interrupted run’s setup; the next new message takes the edited agent', async () => {
    delete process.env.OPENAI_API_KEY;
    const alice = await makeUser('alice');
    const { agent, conversation } = await conversationWith(alice.id, { name: 'Careful', toolGroups: ['utility'], approvalTools: ['calculator'] });
    const waiting = await send(alice.id, conversation.id, '/call calculator {"expression":"6*7"}');
    expect(waiting.status).toBe('interrupted');
    await editAgent(agent.id, EDIT);

    const { run } = await resume(alice.id, conversation.id, { approved: true }, { idempotencyKey: crypto.randomUUID() });
    const resumed = await finished(run.id);
    // Must not happen: the approved call dropped (the edited agent has no calculator) or the run failing on the new model.
    expect(resumed).toMatchObject({ status: 'success', model: 'scripted' });
    const { messages } = await getState(alice.id, conversation.id);
    expect(messages.filter((m) => m.role === 'tool').map((m) => m.text)).toEqual(['42']);
    const resumedAssembly = await assemblyOf(run.id);
    expect(resumedAssembly.descriptor).toEqual((await assemblyOf(waiting.id)).descriptor);
    expect(resumedAssembly.changes).toEqual([]);

    // A new message is a new turn: it runs the agent as edited (and so fails here on the unreachable model).
    const next = await send(alice.id, conversation.id, 'a new turn');
    expect(next).toMatchObject({ status: 'error', model: 'openai:gpt-4o-mini' });
    expect((await assemblyOf(next.id)).descriptor.model).toBe('openai:gpt-4o-mini');
    expect((await assemblyOf(next.id)).changes!.length).toBeGreaterThan(0);
  });
});
