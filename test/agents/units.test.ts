import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseScript } from '@/server/agents/directives';
import { answerDanglingToolCalls, systemPrompt } from '@/server/agents/graph';
import { ArithmeticError, evaluateArithmetic, formatNumber } from '@/server/agents/tools/arithmetic';
import { ensureBuiltinToolGroups } from '@/server/agents/tools/builtin';
import type { RunContext } from '@/server/agents/run-types';
import { registerToolGroup, runContext, toolsForAgent } from '@/server/agents/tools/registry';
import { toApiMessages } from '@/server/agents/messages';
import { openDatabase } from '@/server/db';

const ctx: RunContext = { ownerId: 'o', conversationId: 'c', runId: 'r', agentId: 'a' };

describe('directive parser', () => {
  it('reads each directive, in order, ignoring ordinary lines', async () => {
    const script = parseScript(
      ['Intro text', '/call calculator {"expression":"1+1"}', '  /ask Which city?', '/call current_time', '/reply Done.', '/sleep 250', '/loop calculator {"expression":"2"}'].join('\n'),
    );
    expect(script).toEqual({
      actions: [
        { kind: 'call', tool: 'calculator', args: { expression: '1+1' } },
        { kind: 'ask', question: 'Which city?' },
        { kind: 'call', tool: 'current_time', args: {} },
      ],
      reply: 'Done.',
      sleepMs: 250,
      paceMs: 0,
      tokens: null,
      say: null,
      fail: null,
      flaky: 0,
      loop: { tool: 'calculator', args: { expression: '2' } },
      cite: false,
      errors: [],
      hasDirectives: true,
    });
    expect(parseScript('/reply Done\n/cite')).toMatchObject({ reply: 'Done', cite: true, errors: [] });
    expect(parseScript('/cite r1').errors).toEqual(['/cite: takes no argument']);
  });

  it('caps /sleep at 60,000 ms and reports unreadable lines', async () => {
    expect(parseScript('/sleep 999999').sleepMs).toBe(60_000);
    expect(parseScript('/fail Boom').fail).toBe('Boom');
    expect(parseScript('/call calc [1]').errors).toEqual(['/call calc [1]: the arguments must be a JSON object']);
    expect(parseScript('/call {"x":1}').errors).toEqual(['/call {"x":1}: expected a tool name']);
    expect(parseScript('/sleep soon').errors).toEqual(['/sleep soon: expected milliseconds']);
    expect(parseScript('/ask').errors).toEqual(['/ask: the question is missing']);
    expect(parseScript('no directives here\n/unknown thing').hasDirectives).toBe(false);
  });
});

describe('calculator arithmetic (no eval)', () => {
  it('evaluates precedence, unary signs, powers and parentheses', async () => {
    expect(evaluateArithmetic('(2 + 3) * 4')).toBe(20);
    expect(evaluateArithmetic('2 + 3 * 4 - 6 / 3')).toBe(12);
    expect(evaluateArithmetic('2 ^ 3 ^ 2')).toBe(512);
    expect(evaluateArithmetic('-2 ^ 2')).toBe(-4);
    expect(evaluateArithmetic('-(3 - 5) % 3')).toBe(2);
    expect(evaluateArithmetic('1.5e3 + .5')).toBe(1500.5);
    expect(formatNumber(evaluateArithmetic('0.1 + 0.2'))).toBe('0.3');
  });

  it('refuses anything that is not arithmetic', async () => {
    for (const bad of ['process.exit()', '1 +', '(1', '2 ** ', '1 / 0', '', 'constructor', '1; 2', '9 ^ 999', '('.repeat(60) + '1' + ')'.repeat(60)]) {
      expect(() => evaluateArithmetic(bad), bad).toThrow(ArithmeticError);
    }
  });
});

describe('tool registry', () => {
  // Building a run's tools reads its delegation settings: the database is opened (and migrated) first, as at start-up.
  beforeAll(openDatabase);

  it('filters by allowlist over registered groups (empty = all), and new groups can register', async () => {
    ensureBuiltinToolGroups();
    expect((await toolsForAgent(['utility'], ctx)).map((t) => t.name)).toEqual(['current_time', 'calculator']);
    expect(await toolsForAgent(['team'], ctx)).toEqual([]);
    const seen: RunContext[] = [];
    registerToolGroup('team', (context) => {
      seen.push(context);
      return [tool(() => 'sent', { name: 'send_member', description: 'test', schema: z.object({}) })];
    });
    // Registered after the built-in groups, `team` still takes its place in lib/tool-groups.ts's order: an empty
    // allowlist offers the same order whichever domain registered first (start-up, a test, a script).
    expect((await toolsForAgent([], ctx)).map((t) => t.name)).toEqual(['current_time', 'calculator', 'send_member', 'ask_clarification']);
    expect(seen).toEqual([ctx]);
    // A group lib/tool-groups.ts doesn't know comes after the known ones (must not jump ahead of them).
    registerToolGroup('probe_group', () => [tool(() => 'probed', { name: 'probe_tool', description: 'test', schema: z.object({}) })]);
    expect((await toolsForAgent([], { ...ctx })).map((t) => t.name)).toEqual(['current_time', 'calculator', 'send_member', 'ask_clarification', 'probe_tool']);
  });

  it("builds a run context's tools once (the assembly record and the graph share them), again for another context or a re-registered group", async () => {
    ensureBuiltinToolGroups();
    let builds = 0;
    const sendMember = () => {
      builds += 1;
      return [tool(() => 'sent', { name: 'send_member', description: 'test', schema: z.object({}) })];
    };
    registerToolGroup('team', sendMember);
    const run: RunContext = { ...ctx };
    const first = await toolsForAgent(['team'], run);
    expect((await toolsForAgent(['team'], run))[0]).toBe(first[0]);
    expect(builds).toBe(1);
    // Another run's context (even with equal fields) gets its own tools.
    expect((await toolsForAgent(['team'], { ...ctx }))[0]).not.toBe(first[0]);
    expect(builds).toBe(2);
    // Another allowlist for the same context is built for it.
    expect((await toolsForAgent(['utility', 'team'], run)).map((t) => t.name)).toEqual(['current_time', 'calculator', 'send_member']);
    expect(builds).toBe(3);
    // A group registered again (the team layer re-registers at start-up) is built from its new factory.
    registerToolGroup('team', () => []);
    expect(await toolsForAgent(['team'], run)).toEqual([]);
    expect(builds).toBe(3);
  });

  it('gives tools the run context only from config.configurable.ensemble', async () => {
    expect(runContext({ configurable: { ensemble: ctx } })).toBe(ctx);
    expect(() => runContext({ configurable: {} })).toThrow(/only run inside an Ensemble run/);
  });
});

describe('graph helpers', () => {
  it('puts only framework text and the owner instructions in the system prompt', async () => {
    expect(systemPrompt({ name: 'Ada', instructions: 'Be brief.' })).toMatch(/^You are "Ada"[\s\S]*Your owner's instructions:\nBe brief\.$/);
    expect(systemPrompt({ name: 'Ada', instructions: '  ' })).not.toContain("owner's instructions");
  });

  it('shows the model a placeholder result for a tool call that never got one, without changing the thread', async () => {
    const ai = new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'calculator', args: {} }, { id: 'c2', name: 'current_time', args: {} }] });
    const thread = [new HumanMessage('a'), ai, new ToolMessage({ tool_call_id: 'c2', content: 'now' }), new HumanMessage('b')];
    const view = answerDanglingToolCalls(thread);
    expect(view.map((m) => [m.getType(), (m as ToolMessage).tool_call_id ?? null])).toEqual([
      ['human', null],
      ['ai', null],
      ['tool', 'c1'],
      ['tool', 'c2'],
      ['human', null],
    ]);
    expect(thread).toHaveLength(4);
  });

  it('maps content blocks to text in the API shape', async () => {
    const [m] = toApiMessages([new AIMessage({ id: 'x', content: [{ type: 'text', text: 'Hello ' }, { type: 'text', text: 'world' }] })]);
    expect(m).toEqual({ id: 'x', role: 'assistant', text: 'Hello world', provenance: { contentKind: 'assistant', producer: { type: 'agent' } } });
  });
});
