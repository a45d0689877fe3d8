import crypto from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { DelegationResult } from '@/lib/types/delegation';
import { createConversation } from '@/server/agents/conversations';
import type { Agent } from '@/server/db/schema';
import type { StoredAssembly } from '@/server/agents/views';
import { readThread } from '@/server/agents/thread';
import { finished, makeAgent } from '../agents/helpers';
import { delegationsOf, runRow, taskCall, withDelegationScheduler } from '../delegation/helpers';
import { makeUser } from '../support/users';
import { agentFor, apiRoutes, callRoute, type Owner } from './support';

/**
 * Abuses tried from outside (a chat message over the API, scripted-model directives in it), each with what must not
 * happen. The delegation cases need the scheduler running, as in production.
 */
withDelegationScheduler();

/** A full garbage collection now (--expose-gc for this call only). */
function collectGarbage() {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

const messages = apiRoutes().find((r) => r.key === 'POST /conversations/[id]/messages')!;

/** Post a chat message as `owner` (to a new conversation with `agent`, or a default agent) and wait for its run to finish. */
async function chat(owner: Owner, text: string, agent?: Agent) {
  const conversation = await createConversation(owner.id, (agent ?? (await agentFor(owner.id))).id);
  const res = await callRoute({ ...messages, params: { id: conversation.id }, body: { text, idempotencyKey: crypto.randomUUID() }, headers: owner.auth });
  expect(res.status).toBe(202);
  const run = await finished((res.body.run as { id: string }).id, 20_000);
  return { conversation, run };
}

const freezing = (value: string) =>
  taskCall({
    description: 'Regex',
    prompt: `/call submit_output ${JSON.stringify({ s: value })}`,
    output_schema: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } }, required: ['s'] },
  });

describe('abuse matrix: regular expressions a model or a person writes', () => {
  // Tried up to three times: the freeze this guards against fails every try (for hours), while a pause another
  // worker's load causes on this 2-core machine fails one at most.
  it('an output_schema pattern with exponential backtracking, on a 40-character child output, keeps event-loop delay p99 under 50 ms', { retry: 2 }, async () => {
    // What must not happen: the pattern run by the backtracking engine, which blocks the event loop (and with it
    // the health check and every other account) for hours on these 40 characters.
    const alice = await makeUser('alice');
    const value = `${'a'.repeat(39)}!`;
    // Warm-up (the path's first imports and compiles, and its failure path's, are not what is measured).
    await chat(alice, freezing('a'.repeat(40)));
    await chat(alice, freezing(value));
    const delay = monitorEventLoopDelay({ resolution: 1 });
    // The garbage earlier test files in this worker left is collected first: their major GC is not what is measured.
    collectGarbage();
    delay.enable();
    const { run } = await chat(alice, freezing(value));
    delay.disable();
    expect(delay.percentile(99) / 1e6).toBeLessThan(50);
    // The output is checked all the same: it does not match, so the child failed, saying why.
    const [row] = await delegationsOf(run.id);
    expect(row!.result as DelegationResult).toMatchObject({ status: 'failed', error: expect.stringContaining('must match pattern') });
  });

  it('a matching output passes the same pattern', async () => {
    const alice = await makeUser('alice');
    const { run } = await chat(alice, freezing('a'.repeat(40)));
    expect((await delegationsOf(run.id))[0]!.result as DelegationResult).toMatchObject({ status: 'completed', structured: { s: 'a'.repeat(40) } });
  });

  it.each([
    ['a backreference', { s: { type: 'string', pattern: '^(a+)\\1$' } }, 'properties["s"].pattern'],
    ['a lookahead', { s: { type: 'string', pattern: '^(?=a)a+$' } }, 'properties["s"].pattern'],
    ['a lookbehind in patternProperties', { o: { type: 'object', patternProperties: { '(?<=x)y': { type: 'string' } } } }, 'properties["o"].patternProperties["(?<=x)y"]'],
  ])('a pattern RE2 cannot run (%s) is refused naming its field', async (_name, properties, field) => {
    // What must not happen: the pattern accepted and run on the backtracking engine instead.
    const alice = await makeUser('alice');
    const { run } = await chat(alice, taskCall({ description: 'd', prompt: '/reply x', output_schema: { type: 'object', properties } }));
    const [row] = await delegationsOf(run.id);
    expect(row).toMatchObject({ status: 'failed', admittedAt: null, childRunId: null });
    expect((row!.spec as { refused: Record<string, unknown> }).refused).toMatchObject({
      error: 'invalid_output_schema',
      field: `output_schema.${field}`,
      message: expect.stringContaining(`output_schema.${field}`),
    });
  });
});

describe('abuse matrix: delegation containment', () => {
  it('a child limited to ["task"] cannot hand its grandchild the calculator, by omission or by asking', async () => {
    // What must not happen: a descendant running a tool its ancestor's filter took away (here the calculator,
    // through a grandchild started without a tools list, or with one that names it).
    const alice = await makeUser('alice');
    const lead = await makeAgent(alice.id, { name: 'Lead', maxDepth: 2 });
    const grandchild = taskCall({ description: 'grandchild', prompt: '/call calculator {"expression":"6*7"}' });
    const asking = `/also task ${JSON.stringify({ description: 'asks', prompt: '/reply never', tools: ['calculator'] })}`;
    const { run } = await chat(alice, taskCall({ description: 'child', prompt: `${grandchild}\n${asking}`, tools: ['task'] }), lead);
    const [child] = await delegationsOf(run.id);
    expect(child).toMatchObject({ status: 'completed' });
    const [silent, asked] = await delegationsOf(child!.childRunId!);
    // Started without a tools list, the grandchild inherits ["task"]: no calculator in its prompt, refused if called.
    const grand = await runRow(silent!.childRunId!);
    expect((grand.assembly as StoredAssembly).descriptor.tools.map((t) => t.name)).not.toContain('calculator');
    const results = (await readThread(silent!.childConversationId!)).messages.filter((m) => m.getType() === 'tool') as unknown as Array<{ name: string; status: string }>;
    expect(results.map((r) => [r.name, r.status])).toEqual([['calculator', 'error']]);
    // Asked for by name, it is refused before anything starts.
    expect(asked).toMatchObject({ status: 'failed', childRunId: null, admittedAt: null });
    expect((asked!.spec as { refused: Record<string, unknown> }).refused).toMatchObject({ error: 'tool_not_allowed', tools: ['calculator'] });
  });
});
