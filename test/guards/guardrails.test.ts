import crypto from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import * as runRoute from '@/app/api/v1/runs/[id]/route';
import { LIMITS } from '@/lib/limits';
import { getState, start } from '@/server/agents/runs';
import { setRunMinuteMsForTests } from '@/server/agents/run-time-limit';
import { conversationWith, finished, send } from '../agents/helpers';
import { eventsOf, ofType } from '../observe/helpers';
import { call } from '../support/teams';
import { makeUser } from '../support/users';

const calls = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `/call calculator {"expression":"${i + from}+0"}`).join('\n');

async function thread(ownerId: string, conversationId: string) {
  return (await getState(ownerId, conversationId)).messages;
}

const notesOf = (messages: Awaited<ReturnType<typeof thread>>) => messages.filter((m) => m.provenance?.contentKind === 'note' && m.role === 'user');

afterEach(async () => setRunMinuteMsForTests(undefined));

describe('max turns (turn_capped)', () => {
  it('a run inside its turns ends normally; one turn more is capped and, without a partial answer, fails', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'], maxTurns: 3 });
    // Exactly 3 turns: two tool turns and the answer.
    const inside = await send(ann.id, conversation.id, `${calls(2)}\n/reply Sum done`);
    expect(inside).toMatchObject({ status: 'success', stopReason: null, error: null });
    // One past: three tool turns and the answer need 4; the third turn's call is removed and nothing answered.
    const past = await send(ann.id, conversation.id, `${calls(3)}\n/reply never`);
    expect(past).toMatchObject({ status: 'error', stopReason: 'turn_capped', error: 'Stopped after 3 model turns (max turns)' });
    const messages = await thread(ann.id, conversation.id);
    // The third call never ran (no third tool result in this turn) and the note closes the turn.
    expect(messages.slice(-5).map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant', 'tool', 'user']);
    expect(messages.at(-1)).toMatchObject({ text: 'Stopped after 3 model turns (max turns)', provenance: { contentKind: 'note', producer: { type: 'framework' } } });
    const finishedEvent = ofType(await eventsOf(past.id), 'run.finished')[0]!;
    expect(finishedEvent).toMatchObject({ outcome: 'failed', stopReason: 'turn_capped' });
  });

  it('with a usable partial answer (text beside the removed calls) the run completes, capped', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'], maxTurns: 2 });
    const run = await send(ann.id, conversation.id, '/say Partial: 1+1 is 2 so far\n/loop calculator {"expression":"1+1"}');
    expect(run).toMatchObject({ status: 'success', stopReason: 'turn_capped', error: null });
    const messages = await thread(ann.id, conversation.id);
    const last = messages.filter((m) => m.role === 'assistant').at(-1)!;
    expect(last).toMatchObject({ text: 'Partial: 1+1 is 2 so far' });
    expect(last.toolCalls).toBeUndefined();
    expect(messages.filter((m) => m.role === 'tool')).toHaveLength(1);
    const view = await call(runRoute.GET, { headers: ann.auth, params: { id: run.id } });
    expect(view.body).toMatchObject({ run: { status: 'success', stopReason: 'turn_capped' } });
    expect(ofType(await eventsOf(run.id), 'run.finished')[0]).toMatchObject({ outcome: 'completed', stopReason: 'turn_capped' });
    // The next message starts a new turn with its own budget of turns.
    expect(await send(ann.id, conversation.id, '/reply fresh')).toMatchObject({ status: 'success', stopReason: null });
  });
});

describe('token budget (token_capped)', () => {
  const min = LIMITS.run.tokenBudget.min; // 1,000
  const tokenWarnings = (messages: Awaited<ReturnType<typeof thread>>) => notesOf(messages).filter((m) => m.meta?.guard === 'token-budget');

  it('warns once at exactly 70 %, stops at 100 %: calls removed, one answer-now call without tools', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'], tokenBudget: min });
    // 350 tokens per response: 350, 700 (= 70 %: warning), 1,050 (≥ 100 %: stop).
    const run = await send(ann.id, conversation.id, `/tokens 350\n${calls(5)}\n/reply Best effort answer`);
    expect(run).toMatchObject({ status: 'success', stopReason: 'token_capped', error: null });
    const messages = await thread(ann.id, conversation.id);
    const warnings = tokenWarnings(messages);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]!.text).toBe('Token budget warning: this run has used 70 % of its budget (700 of 1,000 tokens). Plan to finish soon.');
    expect(warnings[1]!.text).toMatch(/^Token budget reached: this run has used 1,050 of its 1,000 tokens\. Pending tool calls were not run\. Answer now/);
    // user, call 1, result, call 2, result, warning (after the results, before the next call), stop note, answer.
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'user', 'user', 'assistant']);
    expect(messages.at(-1)!.text).toBe('Best effort answer');
    expect(messages.at(-1)!.toolCalls).toBeUndefined();
    // Four model calls: the third was capped, the fourth is the answer (its tokens are spent past the budget).
    expect(run).toMatchObject({ modelCalls: 4, inputTokens: 4 * 263, outputTokens: 4 * 87 });
    const steps = ofType(await eventsOf(run.id), 'step.assistant');
    expect(steps.map((s) => s.toolCalls.length)).toEqual([1, 1, 0, 0]);
    // The run's steps say which call the guard removed, and why; the answer-now step removed nothing.
    expect(steps[2]).toMatchObject({ removedToolCalls: [{ name: 'calculator', args: '{"expression":"3+0"}' }], stopReason: 'token_capped' });
    expect(steps[3]).not.toHaveProperty('removedToolCalls');
  });

  it('one token under 70 % gives no warning; one under 100 % goes on; exactly 100 % stops at once', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'], tokenBudget: min });
    const under = await send(ann.id, conversation.id, `/tokens 699\n${calls(2)}\n/reply ok`);
    // 699 then 1,398: never warned (the first was under 70 %), stopped at the second.
    expect(under).toMatchObject({ status: 'success', stopReason: 'token_capped' });
    expect(tokenWarnings(await thread(ann.id, conversation.id)).map((n) => n.text.split(':')[0])).toEqual(['Token budget reached']);
    const nearly = await send(ann.id, conversation.id, `/tokens 999\n${calls(2)}\n/reply ok`);
    expect(nearly).toMatchObject({ status: 'success', stopReason: 'token_capped' });
    // 999 is under 100 %: its call ran (one tool result), with a warning; 1,998 stopped the next.
    const second = (await thread(ann.id, conversation.id)).slice(-5);
    expect(second.map((m) => [m.role, m.meta?.guard ?? null])).toEqual([
      ['assistant', null],
      ['tool', null],
      ['user', 'token-budget'],
      ['user', 'token-budget'],
      ['assistant', null],
    ]);
    const exact = await send(ann.id, conversation.id, `/tokens 1000\n${calls(1)}\n/reply ok`);
    expect(exact).toMatchObject({ status: 'success', stopReason: 'token_capped', modelCalls: 2 });
    expect(ofType(await eventsOf(exact.id), 'step.tool')).toHaveLength(0);
  });

  it('uses the instance default when the agent has no budget of its own', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'] });
    // One under: its call runs (with a warning); the answer that follows is not stopped, whatever it cost.
    const under = await send(ann.id, conversation.id, `/tokens ${LIMITS.run.defaultTokenBudget - 1}\n${calls(1)}\n/reply fine`);
    expect(under).toMatchObject({ status: 'success', stopReason: null });
    expect((await thread(ann.id, conversation.id)).at(-1)!.text).toBe('fine');
    const at = await send(ann.id, conversation.id, `/tokens ${LIMITS.run.defaultTokenBudget}\n${calls(1)}\n/reply ok`);
    expect(at).toMatchObject({ status: 'success', stopReason: 'token_capped' });
  });

  it('an answer-now call that still has nothing to say fails the run, capped (nothing claims success)', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'], tokenBudget: min });
    const run = await send(ann.id, conversation.id, `/tokens 1000\n${calls(1)}\n/reply  `);
    expect(run).toMatchObject({ status: 'error', stopReason: 'token_capped' });
    expect(run.error).toMatch(/^Token budget reached/);
  });
});

describe('loops (loop_capped)', () => {
  it('/loop: the same call three times in a row is removed and the agent answers with what it has', async () => {
    const ann = await makeUser('ann');
    const { agent, conversation } = await conversationWith(ann.id, { toolGroups: ['utility'] });
    const run = await send(ann.id, conversation.id, '/loop calculator {"expression":"1+1"}');
    expect(run).toMatchObject({ status: 'success', stopReason: 'loop_capped' });
    const messages = await thread(ann.id, conversation.id);
    expect(messages.filter((m) => m.role === 'tool').map((m) => m.text)).toEqual(['2', '2']);
    expect(notesOf(messages).at(-1)!.text).toBe(
      'Loop limit reached: you called the same tool calls 3 times in a row. Those calls were not run. Answer now with what you have; no more tool calls.',
    );
    expect(messages.at(-1)!.text).toBe(`${agent.name}: done\n[calculator] 2\n[calculator] 2`);
    expect(ofType(await eventsOf(run.id), 'run.finished')[0]).toMatchObject({ outcome: 'completed', stopReason: 'loop_capped' });
  });

  it('the same call twice, then another, is not a loop', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'] });
    const same = '/call calculator {"expression":"1+1"}';
    const run = await send(ann.id, conversation.id, `${same}\n${same}\n/call calculator {"expression":"2+2"}\n${same}\n/reply fine`);
    expect(run).toMatchObject({ status: 'success', stopReason: null });
  });

  it(`one tool called ${LIMITS.guards.loop.sameTool} times in a row with varying arguments trips; ${LIMITS.guards.loop.sameTool - 1} does not`, async () => {
    const ann = await makeUser('ann');
    const n = LIMITS.guards.loop.sameTool;
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'], maxTurns: 50 });
    const below = await send(ann.id, conversation.id, `${calls(n - 1)}\n/reply all ${n - 1}`);
    expect(below).toMatchObject({ status: 'success', stopReason: null });
    const at = await send(ann.id, conversation.id, `${calls(n)}\n/reply never`);
    expect(at).toMatchObject({ status: 'success', stopReason: 'loop_capped' });
    const messages = await thread(ann.id, conversation.id);
    expect(notesOf(messages).at(-1)!.text).toMatch(`you called calculator ${n} times in a row`);
    // The 20th call was removed: 19 results in this turn.
    expect(ofType(await eventsOf(at.id), 'step.tool')).toHaveLength(n - 1);
  });
});

describe('time limit (time_capped) flows through the same outcome', () => {
  it('fails with stopReason time_capped in the run JSON and run.finished', async () => {
    setRunMinuteMsForTests(5);
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { timeLimitMinutes: 1 });
    const { run } = await start(ann.id, conversation.id, { text: '/sleep 20000' }, { idempotencyKey: crypto.randomUUID() });
    const capped = await finished(run.id);
    expect(capped).toMatchObject({ status: 'error', stopReason: 'time_capped' });
    const view = await call(runRoute.GET, { headers: ann.auth, params: { id: run.id } });
    expect(view.body).toMatchObject({ run: { status: 'error', stopReason: 'time_capped' } });
    expect(ofType(await eventsOf(run.id), 'run.finished')[0]).toMatchObject({ outcome: 'failed', stopReason: 'time_capped' });
  });
});

describe('handled model failures', () => {
  it('a provider error is a marked message (framework flag, not prose): the graph ends cleanly, the run fails with it', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'] });
    const run = await send(ann.id, conversation.id, '/fail Upstream returned 503');
    expect(run).toMatchObject({ status: 'error', error: 'Upstream returned 503', stopReason: null });
    const messages = await thread(ann.id, conversation.id);
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', meta: { kind: 'framework_note', modelError: { message: 'Upstream returned 503', kind: 'provider' } } });
    // The marker is the framework's record, not a turn: the next request works and the model never receives it.
    const next = await send(ann.id, conversation.id, '/reply recovered');
    expect(next).toMatchObject({ status: 'success', error: null });
  });

  it('assistant prose that merely looks like an error is a normal completed answer', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id);
    const run = await send(ann.id, conversation.id, '/reply Error: provider exploded (503)');
    expect(run).toMatchObject({ status: 'success', error: null, stopReason: null });
    const messages = await thread(ann.id, conversation.id);
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', text: 'Error: provider exploded (503)' });
    expect(messages.at(-1)!.meta).toBeUndefined();
  });
});
