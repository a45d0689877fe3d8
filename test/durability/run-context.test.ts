import crypto from 'node:crypto';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { getCheckpointer } from '@/server/agents/checkpointer';
import { startRun, wait, type StartResult } from '@/server/agents/runs';
import { readThread } from '@/server/agents/thread';
import { registerToolGroup } from '@/server/agents/tools/registry';
import { makeUser } from '../support/users';
import { conversationWith, send } from '../agents/helpers';

describe('a run started from inside another run', () => {
  // The scheduler starts runs from callbacks that may have been scheduled inside a tool call (send_member wakes
  // it). LangGraph would take that ambient config for a parent graph and file the new run's checkpoints under the
  // tool's subgraph namespace, so the conversation's own thread would never see them.
  it('keeps its checkpoints in its own conversation thread, not in a subgraph namespace of the caller', async () => {
    const alice = await makeUser('alice');
    const target = (await conversationWith(alice.id, { name: 'Target' })).conversation;
    let spawned: StartResult | undefined;
    registerToolGroup('test_spawn', () => [
      tool(
        async () => {
          spawned = await startRun(target.id, { text: 'hello from inside a tool' }, { idempotencyKey: crypto.randomUUID() });
          return 'spawned';
        },
        { name: 'spawn_run', description: 'starts a run in another conversation', schema: z.object({}) },
      ),
    ]);
    const caller = (await conversationWith(alice.id, { name: 'Caller', toolGroups: ['test_spawn'] })).conversation;
    expect((await send(alice.id, caller.id, '/call spawn_run {}')).status).toBe('success');

    const inner = await wait(spawned!.run.id, 10_000);
    expect(inner?.status).toBe('success');
    const { messages } = await readThread(target.id);
    expect(messages.map((m) => [m.getType(), m.content])).toEqual([
      ['human', 'hello from inside a tool'],
      ['ai', 'Target received: hello from inside a tool'],
    ]);
    const namespaces = new Set<unknown>();
    for await (const tuple of getCheckpointer().list({ configurable: { thread_id: target.id } })) namespaces.add(tuple.config.configurable?.checkpoint_ns);
    expect([...namespaces]).toEqual(['']);
  });
});
