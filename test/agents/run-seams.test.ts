import crypto from 'node:crypto';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerDelegation } from '@/server/agents/delegation/register';
import { GRAPH_GUARDS, graphGuards } from '@/server/agents/graph';
import { applyResponseGuards, registerResponseGuard, responseGuards } from '@/server/agents/guards';
import { registerSharedTokenBudget, tokenGuard } from '@/server/agents/guards/tokens';
import type { ResponseGuardInput } from '@/server/agents/guards/types';
import { registerRunSetup, runSetupFor } from '@/server/agents/run-setup';
import type { RunContext } from '@/server/agents/run-types';
import { ensureBuiltinToolGroups } from '@/server/agents/tools/builtin';
import { registeredToolGroups } from '@/server/agents/tools/registry';
import { openDatabase } from '@/server/db';
import type { Agent } from '@/server/db/schema';

/**
 * The run core's seams (ADR 049): delegation plugs in from outside, so the core must work without it, take it in
 * exactly once however often start-up paths register it, and record the same assembly as before the seams.
 * Tests in this file run in order on one process's registries (each file starts with them empty).
 */

// The guard list every assembly recorded before ADR 049, when delegation-cap was written into graph.ts: with
// delegation registered it must stay the same, or every existing agent would show "Setup changed".
const RECORDED_BEFORE = [
  'time-limit',
  'compaction',
  'dangling-tool-calls',
  'receipt-labels',
  'model-call-events',
  'model-meta-strip',
  'handled-model-failure',
  'max-turns',
  'token-budget',
  'loop-guard',
  'delegation-cap',
  'guard-notes',
  'approval',
  'tool-meta-strip',
  'receipts',
  'tool-events',
  'clarification-stop',
];

const agent = {
  id: 'a',
  ownerId: 'o',
  name: 'A',
  instructions: "The owner's own instructions",
  model: 'scripted',
  toolGroups: [],
  approvalTools: [],
  maxTurns: 3,
} as unknown as Agent;

const ordinary: RunContext = { ownerId: 'o', conversationId: 'c', runId: 'r', agentId: 'a' };
// A delegated child's server-written context (delegation/settings.ts ChildContext).
const child: RunContext = { ...ordinary, delegationId: 'd', depth: 1, delegation: { maxDepth: 2, persona: 'A careful checker', timeLimitMinutes: 3 } };

const ai = (calls: Array<{ name: string; args: Record<string, unknown> }>, usage?: number) =>
  new AIMessage({
    id: crypto.randomUUID(),
    content: '',
    tool_calls: calls.map((c, i) => ({ ...c, id: `c${i}`, type: 'tool_call' as const })),
    ...(usage === undefined ? {} : { usage_metadata: { input_tokens: usage, output_tokens: 0, total_tokens: usage } }),
  });

const names = () => responseGuards().map((g) => g.name);

beforeAll(openDatabase);

describe('the run core without delegation', () => {
  it('brings no delegation of its own: no delegate group, no delegation guard, no child-run setup', () => {
    ensureBuiltinToolGroups();
    // What must not happen: the core registering delegation itself (it would import it again).
    expect(registeredToolGroups()).toEqual(['utility', 'clarify']);
    expect(names()).toEqual(['max-turns', 'token-budget', 'loop-guard']);
    expect(graphGuards()).toEqual([...GRAPH_GUARDS]);
    expect(runSetupFor(agent, child)).toBeNull();
  });
});

describe('delegation plugged in', () => {
  it('registers its group, guard and child-run setup once, however often it is called; the assembly records what it did before', () => {
    registerDelegation();
    registerDelegation();
    ensureBuiltinToolGroups();
    expect(registeredToolGroups()).toEqual(['utility', 'delegate', 'clarify']);
    expect(names()).toEqual(['max-turns', 'token-budget', 'loop-guard', 'delegation-cap']);
    expect(graphGuards()).toEqual(RECORDED_BEFORE);
    // A child runs with its persona instead of the owner's instructions (the model still built from the catalog
    // agent), under the delegation's time limit; an ordinary run is nobody's to change.
    const setup = runSetupFor(agent, child);
    expect(setup).toMatchObject({ agent: { instructions: '' }, graphOptions: { modelAgent: agent }, timeLimitMinutes: 3 });
    expect(runSetupFor(agent, ordinary)).toBeNull();
  });

  it("a registered guard runs after the built-in ones on what they kept; registering its name again replaces it", async () => {
    const seen: Array<{ version: number; calls: number }> = [];
    const probe = (version: number) => ({
      name: 'probe-guard',
      check: ({ message }: ResponseGuardInput) => {
        seen.push({ version, calls: message.tool_calls?.length ?? 0 });
        return { message, note: `probe ${version}` };
      },
    });
    registerResponseGuard(probe(1));
    registerResponseGuard(probe(2));
    // Once, after delegation-cap (registered first): a second registration is not a second guard.
    expect(names()).toEqual(['max-turns', 'token-budget', 'loop-guard', 'delegation-cap', 'probe-guard']);
    const human = new HumanMessage({ content: 'go' });
    // The third model turn of three: max turns removes the calls before the registered guard sees the response.
    const guarded = await applyResponseGuards({
      message: ai([{ name: 'calculator', args: { expression: '1+1' } }]),
      messages: [human, ai([{ name: 'calculator', args: { expression: '1' } }]), ai([{ name: 'calculator', args: { expression: '2' } }])],
      agent,
      context: ordinary,
      run: undefined,
    });
    expect(seen).toEqual([{ version: 2, calls: 0 }]);
    expect(guarded.stopReason).toBe('turn_capped');
    expect(guarded.notes.map((n) => n.guard)).toEqual(['max-turns', 'probe-guard']);
  });

  it('the token guard stops a run when its shared budget is spent, exactly at the limit and not one token before', async () => {
    let spentElsewhere = 0;
    registerSharedTokenBudget(async () => ({ budget: 1_000, spentElsewhere }));
    const check = (message: AIMessage) =>
      tokenGuard.check({ message, messages: [new HumanMessage({ content: 'go' })], agent, context: ordinary, run: { runId: crypto.randomUUID(), threadId: 'c' } });
    // This response reported 100 tokens; the run's own budget (the default) is far away.
    spentElsewhere = 899;
    expect(await check(ai([{ name: 'calculator', args: {} }], 100))).toBeNull();
    spentElsewhere = 900;
    const capped = await check(ai([{ name: 'calculator', args: {} }], 100));
    // What must not happen: a tree past its budget still calling tools.
    expect(capped).toMatchObject({ stopReason: 'token_capped' });
    expect(capped!.message.tool_calls).toEqual([]);
    expect(capped!.note).toContain('1,000 of the tree');
    // No shared budget for this run: its own budget alone decides.
    registerSharedTokenBudget(async () => null);
    expect(await check(ai([{ name: 'calculator', args: {} }], 100))).toBeNull();
  });

  it('a run-setup hook claims only its own runs; the first hook that claims one decides', () => {
    registerRunSetup('probe', (a, context) => (context.probeRun === true ? { agent: { ...a, name: 'Probe' }, graphOptions: {} } : null));
    expect(runSetupFor(agent, { ...ordinary, probeRun: true })?.agent.name).toBe('Probe');
    expect(runSetupFor(agent, ordinary)).toBeNull();
    // Delegation registered first: its child stays its own even when another hook would claim it too.
    expect(runSetupFor(agent, { ...child, probeRun: true })?.agent).toMatchObject({ name: 'A', instructions: '' });
  });
});
