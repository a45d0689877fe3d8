import crypto from 'node:crypto';
import fs from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { DelegationResult } from '@/lib/types/delegation';
import { createConversation } from '@/server/agents/conversations';
import type { Agent } from '@/server/db/schema';
import type { StoredAssembly } from '@/server/agents/views';
import { readThread } from '@/server/agents/thread';
import { compileUntrustedSchema } from '@/server/trust/untrusted-json-schema';
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

/** The least time, in ms, `fn` took over `runs` calls: the call's own cost, without the pauses a loaded machine adds. */
function leastMs(fn: () => unknown, runs: number): number {
  let least = Infinity;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    fn();
    least = Math.min(least, performance.now() - started);
  }
  return least;
}

const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;
/** CPU time of the event loop's thread in ms: Linux's schedstat (ns on CPU), else the whole process's. */
function loopThreadCpuMs(): number {
  try {
    return Number(fs.readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  }
}

/**
 * Event-loop delay that this process's own work caused, sampled every millisecond: each sample is how late the
 * timer fired, but no more than the CPU time the loop's thread spent meanwhile. A blocked loop (a regex backtracking,
 * a long collection) burns CPU for as long as it is late and counts in full; a loop that was late because other
 * processes had the machine's two cores (the other test workers) spent no CPU meanwhile and does not count. That is
 * the part of the issue's figure this code can cause: unloaded, the two are the same. `wallP99` is the plain figure.
 * The main thread's own CPU where Linux tells it (its schedstat, in ns): the whole process's would count V8's
 * background GC and compiler threads, which run while a descheduled loop waits and once made 74 ms of "own" delay
 * out of a 92 ms wait on a machine at load 12.
 */
function ownLoopDelay() {
  const own: number[] = [];
  const wall: number[] = [];
  let lastAt = performance.now();
  let lastCpu = loopThreadCpuMs();
  const timer = setInterval(() => {
    const at = performance.now();
    const cpu = loopThreadCpuMs();
    const late = Math.max(0, at - lastAt - 1);
    wall.push(late);
    own.push(Math.min(late, cpu - lastCpu));
    lastAt = at;
    lastCpu = cpu;
  }, 1);
  const p99 = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length * 0.99)] ?? 0;
  return {
    stop() {
      clearInterval(timer);
      return { p99: p99(own), wallP99: p99(wall), samples: own.length };
    },
  };
}

describe('abuse matrix: regular expressions a model or a person writes', () => {
  it('the delay measure counts a loop this process blocks itself (80 ms of CPU), so the bar below can fail', async () => {
    const delay = ownLoopDelay();
    await new Promise<void>((resolve) => setTimeout(resolve, 20));
    // Busy for 80 ms of the thread's own CPU (not of the clock: on a loaded machine it gets less), as a backtracking
    // regex would be.
    const until = loopThreadCpuMs() + 80;
    while (loopThreadCpuMs() < until) {
      // spin
    }
    await new Promise<void>((resolve) => setTimeout(resolve, 20));
    const figures = delay.stop();
    expect(figures.p99).toBeGreaterThan(60);
  });

  it('an output_schema pattern with exponential backtracking, on a 40-character child output, keeps event-loop delay p99 under 50 ms', async () => {
    // What must not happen: the pattern run by the backtracking engine, which blocks the event loop (and with it
    // the health check and every other account) for hours on these 40 characters — here, or on any other path the
    // child's output takes (the tool call's own argument check was one).
    const alice = await makeUser('alice');
    const value = `${'a'.repeat(39)}!`;
    // Warm-up (the path's first imports and compiles, and its failure path's, are not what is measured).
    await chat(alice, freezing('a'.repeat(40)));
    await chat(alice, freezing(value));
    // The garbage earlier test files in this worker left is collected first: their major GC is not what is measured.
    collectGarbage();
    const delay = ownLoopDelay();
    const { run } = await chat(alice, freezing(value));
    const figures = delay.stop();
    expect(figures.samples).toBeGreaterThan(10);
    expect(figures.p99, `own p99 ${figures.p99.toFixed(1)} ms, wall p99 ${figures.wallP99.toFixed(1)} ms`).toBeLessThan(50);
    // The output is checked all the same: it does not match, so the child failed, saying why.
    const [row] = await delegationsOf(run.id);
    expect(row!.result as DelegationResult).toMatchObject({ status: 'failed', error: expect.stringContaining('must match pattern') });
  });

  it('checking an output against that pattern takes time linear in its length, where the backtracking engine doubles per character', () => {
    // What must not happen: the check's cost growing with the input the way the backtracking engine's does (2^n:
    // hours at 40 characters). Each figure is the least of several calls, so a pause from the machine's load can't
    // make it; the oracle is measured here too, on the same machine at the same moment.
    const check = compileUntrustedSchema({ type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } }, required: ['s'] });
    const evil = (n: number) => ({ s: `${'a'.repeat(n - 1)}!` });
    expect(check(evil(40))).toMatchObject({ ok: false });
    expect(check({ s: 'a'.repeat(40) })).toEqual({ ok: true });
    const backtracking = /^(a+)+$/;
    const oracle18 = leastMs(() => backtracking.test(evil(18).s), 3);
    const oracle22 = leastMs(() => backtracking.test(evil(22).s), 3);
    // The oracle is exponential: four more characters cost it about 16 times as much (at least 4 asked).
    expect(oracle22).toBeGreaterThan(4 * oracle18);
    const at40 = leastMs(() => check(evil(40)), 20);
    const at4000 = leastMs(() => check(evil(4_000)), 20);
    // The 40-character check costs a hundredth of what the backtracking engine spends on 22 characters (it would
    // spend 2^18 times that on 40), and even 4,000 characters cost less than those 22 do.
    expect(at40, `40 chars ${at40.toFixed(4)} ms; oracle 22 chars ${oracle22.toFixed(2)} ms`).toBeLessThan(oracle22 / 100);
    expect(at4000, `4,000 chars ${at4000.toFixed(4)} ms; oracle 22 chars ${oracle22.toFixed(2)} ms`).toBeLessThan(oracle22);
    // The bar for the call itself: far below 50 ms.
    expect(at40).toBeLessThan(50);
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
