import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from '@langchain/core/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { closeCheckpointer } from '@/server/agents/checkpointer';
import { compactionsOf } from '@/server/agents/compaction/store';
import { messageHash } from '@/server/agents/compaction/model-input';
import { systemPrompt } from '@/server/agents/graph';
import { contentText } from '@/server/agents/messages';
import { getState } from '@/server/agents/runs';
import { readThread } from '@/server/agents/thread';
import type { Agent } from '@/server/db/schema';
import { makeUser } from '../support/users';
import { conversationWith, send } from '../agents/helpers';
import { createConversation } from '@/server/agents/conversations';
import { eventsOf, ofType, typesOf } from '../observe/helpers';
import { estimate, filler, recordModelCalls } from './helpers';

let recorder: ReturnType<typeof recordModelCalls> | undefined;
afterEach(async () => recorder?.restore());

const tokensOf = (m: BaseMessage) => {
  let text = contentText(m.content);
  if (AIMessage.isInstance(m)) for (const c of m.tool_calls ?? []) text += `${c.name}${JSON.stringify(c.args)}`;
  return estimate(text) + 4;
};
const promptTokens = (agent: Agent) => estimate(systemPrompt(agent)) + 4;
const threadOf = async (conversationId: string) => (await readThread(conversationId)).messages;
const ids = (messages: readonly BaseMessage[]) => messages.map((m) => m.id);

describe('compaction at the threshold (estimate counter, scripted model)', () => {
  it('an input of exactly the threshold is sent whole; one token more is compacted: system + summary + the kept tail', async () => {
    const ann = await makeUser('ann');
    const { agent, conversation: atLimit } = await conversationWith(ann.id, { name: 'Boundary', compactAtTokens: 1_000 });
    const overLimit = await createConversation(ann.id, agent.id);
    const opening = filler(400, 'hello');
    for (const c of [atLimit, overLimit]) expect((await send(ann.id, c.id, opening)).status).toBe('success');
    const history = await threadOf(atLimit.id);
    const answer = `Boundary received: ${opening.slice(0, 200)}`;
    expect(history.map((m) => contentText(m.content))).toEqual([opening, answer]);
    const before = promptTokens(agent) + history.reduce((n, m) => n + tokensOf(m), 0);
    const room = 1_000 - before - 4; // the new message's own overhead

    recorder = recordModelCalls();
    const same = await send(ann.id, atLimit.id, filler(room));
    expect(typesOf(await eventsOf(same.id))).not.toContain('compaction');
    expect(recorder.calls.map((c) => c.system)).toEqual([undefined]);
    const whole = recorder.agentCalls()[0]!;
    expect(whole[0]).toBeInstanceOf(SystemMessage);
    expect(ids(whole.slice(1))).toEqual(ids((await threadOf(atLimit.id)).slice(0, 3)));

    recorder.calls.length = 0;
    const over = await send(ann.id, overLimit.id, filler(room + 1));
    expect(over.status).toBe('success');
    const thread = await threadOf(overLimit.id);
    // The thread keeps every message; only the model's input changed.
    expect(thread).toHaveLength(4);
    expect(recorder.calls.map((c) => c.system)).toEqual(['summary', undefined]);
    const [summaryCall] = recorder.calls;
    expect(summaryCall!.messages[0]).toBeInstanceOf(SystemMessage);
    expect(contentText(summaryCall!.messages[0]!.content)).not.toContain(opening.slice(0, 40)); // the data is never in the system message
    expect(contentText(summaryCall!.messages[1]!.content)).toContain(opening);

    const input = recorder.agentCalls()[0]!;
    // The tail keeps at least min(keepTokens, threshold / 2) = 500 tokens: the new message and the answer before it.
    expect(input).toHaveLength(4);
    expect(input[0]).toBeInstanceOf(SystemMessage);
    const summary = input[1]!;
    expect(summary).toBeInstanceOf(HumanMessage);
    const scripted = `Summary of 1 earlier message:\n- user: ${opening.slice(0, 80)}`;
    expect(contentText(summary.content)).toContain(`<ensemble-summary>\n${scripted}\n</ensemble-summary>`);
    expect(summary.additional_kwargs.ensemble).toMatchObject({ kind: 'compaction', taskText: scripted, provenance: { contentKind: 'compaction', producer: { type: 'framework' } } });
    expect(ids(input.slice(2))).toEqual(ids(thread.slice(1, 3)));

    const events = await eventsOf(over.id);
    expect(typesOf(events)).toEqual(['run.started', 'model.call', 'compaction', 'model.call', 'step.assistant', 'run.finished']);
    const [summaryEvent, agentEvent] = ofType(events, 'model.call');
    expect(summaryEvent).toMatchObject({ system: 'summary', model: 'scripted', inputTokens: expect.any(Number), outputTokens: expect.any(Number), latencyMs: expect.any(Number) });
    expect(agentEvent).not.toHaveProperty('system');
    const [compaction] = ofType(events, 'compaction');
    expect(compaction!.removed).toEqual([{ id: thread[0]!.id, hash: messageHash(thread[0]!) }]);
    expect(compaction!.removed.every((r) => /^[0-9a-f]{16}$/.test(r.hash))).toBe(true);
    expect(compaction!.tokensBefore).toBe(1_001);
    expect(compaction!.tokensAfter).toBe(promptTokens(agent) + tokensOf(summary) + tokensOf(thread[1]!) + tokensOf(thread[2]!));
    expect(compaction!.tokensAfter).toBeLessThan(compaction!.tokensBefore);
    expect(compaction).toMatchObject({ counter: 'estimate', summaryMessageId: summary.id });

    expect(await compactionsOf(overLimit.id)).toEqual([
      expect.objectContaining({ runId: over.id, throughMessageId: thread[0]!.id, summaryMessageId: summary.id, summary: scripted, removed: compaction!.removed }),
    ]);
    expect(await compactionsOf(atLimit.id)).toEqual([]);
  });
});

describe('a compaction record persists', () => {
  it('later runs reuse the summary (also after a restart) until the threshold is passed again; the next summary covers the previous one', async () => {
    const bob = await makeUser('bob');
    const { conversation } = await conversationWith(bob.id, { name: 'Keeper', compactAtTokens: 1_000 });
    await send(bob.id, conversation.id, filler(700, 'aaaa'));
    recorder = recordModelCalls();
    const first = await send(bob.id, conversation.id, filler(600, 'bbbb'));
    expect(ofType(await eventsOf(first.id), 'compaction')).toHaveLength(1);
    const [record] = await compactionsOf(conversation.id);
    expect(record!.removed.map((r) => r.id)).toEqual(ids((await threadOf(conversation.id)).slice(0, 2)));

    recorder.calls.length = 0;
    const second = await send(bob.id, conversation.id, 'and then?');
    expect(typesOf(await eventsOf(second.id))).not.toContain('compaction');
    expect(recorder.calls.map((c) => c.system)).toEqual([undefined]);
    expect(recorder.agentCalls()[0]![1]!.id).toBe(record!.summaryMessageId);

    // A restart: the record is read back from checkpoints.db, not remembered.
    closeCheckpointer();
    recorder.calls.length = 0;
    const third = await send(bob.id, conversation.id, 'still there?');
    expect(typesOf(await eventsOf(third.id))).not.toContain('compaction');
    const afterRestart = recorder.agentCalls()[0]!;
    expect(afterRestart[1]!.id).toBe(record!.summaryMessageId);
    const thread = await threadOf(conversation.id);
    // Everything after the cut, up to this run's question (the thread now also holds its answer).
    expect(ids(afterRestart.slice(2))).toEqual(ids(thread.slice(2, -1)));

    recorder.calls.length = 0;
    const fourth = await send(bob.id, conversation.id, filler(400, 'cccc'));
    const [again] = ofType(await eventsOf(fourth.id), 'compaction');
    expect(again).toBeDefined();
    const records = await compactionsOf(conversation.id);
    expect(records).toHaveLength(2);
    const summaryInput = recorder.calls.find((c) => c.system === 'summary')!.messages[1]!;
    expect(contentText(summaryInput.content)).toContain('earlier summary:\nSummary of 2 earlier messages:');
    expect(records[1]!.summary.split('\n')[1]).toBe('- earlier summary: Summary of 2 earlier messages:');
    // Only messages after the first cut are removed now; the first record keeps its own.
    const firstRemoved = new Set(record!.removed.map((r) => r.id));
    expect(again!.removed.length).toBeGreaterThan(0);
    expect(again!.removed.some((r) => firstRemoved.has(r.id))).toBe(false);
    expect(again!.removed[0]!.id).toBe(thread[2]!.id);
  });

  it('the conversation shows every message and each summary at its place, with provenance compaction', async () => {
    const cy = await makeUser('cy');
    const { conversation } = await conversationWith(cy.id, { name: 'Shown', compactAtTokens: 1_000 });
    await send(cy.id, conversation.id, filler(700));
    await send(cy.id, conversation.id, filler(600));
    const [record] = await compactionsOf(conversation.id);
    const state = await getState(cy.id, conversation.id);
    const thread = await threadOf(conversation.id);
    expect(state.messages.map((m) => m.id)).toEqual([thread[0]!.id, thread[1]!.id, record!.summaryMessageId, thread[2]!.id, thread[3]!.id]);
    expect(state.messages[2]).toMatchObject({ role: 'user', text: record!.summary, provenance: { contentKind: 'compaction', producer: { type: 'framework' } } });
    expect(state.threadMessages).toHaveLength(4);
  });
});
