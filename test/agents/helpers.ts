import crypto from 'node:crypto';
import { schema, writeTx } from '@/server/db';
import type { Agent } from '@/server/db/schema';
import { createConversation } from '@/server/agents/conversations';
import { start, wait } from '@/server/agents/runs';
import type { Run } from '@/server/db/schema';

/** An agent row written straight to the database (the catalog module is another area's). */
export async function makeAgent(ownerId: string, overrides: Partial<Agent> = {}): Promise<Agent> {
  const name = overrides.name ?? `Agent ${crypto.randomUUID().slice(0, 6)}`;
  const [agent] = await writeTx((tx) =>
    tx
      .insert(schema.agents)
      .values({
        id: crypto.randomUUID(),
        ownerId,
        name,
        nameKey: name.toLowerCase(),
        description: '',
        instructions: '',
        model: 'scripted',
        toolGroups: [],
        approvalTools: [],
        maxTurns: 25,
        updatedAt: new Date(),
        ...overrides,
      })
      .returning(),
  );
  return agent!;
}

export async function conversationWith(ownerId: string, agentOverrides: Partial<Agent> = {}) {
  const agent = await makeAgent(ownerId, agentOverrides);
  const conversation = await createConversation(ownerId, agent.id);
  return { agent, conversation };
}

/** Send text and wait for the run to finish (bounded; fails the test if it does not). */
export async function send(ownerId: string, conversationId: string, text: string, key = crypto.randomUUID()): Promise<Run> {
  const { run } = await start(ownerId, conversationId, { text }, { idempotencyKey: key });
  return finished(run.id);
}

export async function finished(runId: string, timeoutMs = 10_000): Promise<Run> {
  const run = await wait(runId, timeoutMs);
  if (!run) throw new Error(`run ${runId} is missing`);
  if (run.status === 'pending' || run.status === 'running') throw new Error(`run ${runId} still ${run.status} after ${timeoutMs} ms`);
  return run;
}

/** Poll a condition until it holds (bounded): for states no event announces, like a checkpoint being written. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
