import crypto from 'node:crypto';
import type { AIMessage } from '@langchain/core/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { liveRunCount } from '@/server/agents/live-output/registry';
import { cancel, start } from '@/server/agents/runs';
import { findRun } from '@/server/agents/run-store';
import { readThread } from '@/server/agents/thread';
import { pushBus, type LiveOutputChange } from '@/server/push/bus';
import { conversationWith, finished } from '../agents/helpers';
import { startOpenAiStub } from '../agents/openai-stub';
import { eventsOf, ofType } from '../observe/helpers';
import { until } from '../support/wait';
import { makeUser } from '../support/users';

const saved = { ...process.env };
const stops: Array<() => unknown> = [];
afterEach(async () => {
  process.env = { ...saved };
  for (const stop of stops.splice(0)) await stop();
});

/** Every live output message of one run, as the push bus carries it. */
function listen() {
  const heard: LiveOutputChange[] = [];
  const target = { runId: '' };
  const on = (change: LiveOutputChange) => {
    if (change.runId === target.runId) heard.push(change);
  };
  pushBus().on('liveOutput', on);
  stops.push(() => pushBus().off('liveOutput', on));
  return { heard, follow: (runId: string) => (target.runId = runId) };
}

const WORDS = 'one two three four five six seven eight nine ten eleven twelve';

describe('live output of a run (the graph streams its model calls)', () => {
  it('arrives in order, growing, while the run runs; the stored answer, its usage and model.call are as before', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { name: 'Paced' });
    const { heard, follow } = listen();
    const { run } = await start(ann.id, conversation.id, { text: `/pace 60\n/reply ${WORDS}` }, { idempotencyKey: crypto.randomUUID() });
    follow(run.id);
    // Text arrives before the run is over.
    await until(async () => heard.length > 0, 5_000, 'first live output');
    expect((await findRun(run.id))?.status).toBe('running');
    expect(heard[0]).toMatchObject({ ownerId: ann.id, conversationId: conversation.id, runId: run.id, teamId: null, jobId: null, done: false, truncated: false });
    expect(WORDS.startsWith(heard[0]!.text) && heard[0]!.text.length < WORDS.length).toBe(true);

    const done = await finished(run.id);
    expect(done.status).toBe('success');
    // Each message holds the text so far: every one extends the one before; the last (done) is the whole answer.
    const texts = heard.map((h) => h.text);
    texts.forEach((text, i) => expect(text.startsWith(texts[i - 1] ?? '')).toBe(true));
    expect(heard.at(-1)).toMatchObject({ text: WORDS, done: true });
    expect(heard.filter((h) => h.done)).toHaveLength(1);
    expect(heard.filter((h) => !h.done).length).toBeGreaterThanOrEqual(2);
    expect(liveRunCount()).toBe(0);

    // The answer is stored as an AIMessage (not a chunk) with the usage the model.call event reports.
    const { messages } = await readThread(conversation.id);
    const answer = messages.at(-1) as AIMessage;
    expect(answer.getType()).toBe('ai');
    expect(answer.constructor.name).toBe('AIMessage');
    expect(answer.content).toBe(WORDS);
    const [call] = ofType(await eventsOf(run.id), 'model.call');
    expect(call).toMatchObject({ model: 'scripted', inputTokens: answer.usage_metadata!.input_tokens, outputTokens: Math.ceil(WORDS.length / 4) });
    expect(done).toMatchObject({ inputTokens: call!.inputTokens, outputTokens: call!.outputTokens });
  });

  it('a run cancelled mid-stream stops writing, says done once, and keeps nothing', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { name: 'Slow' });
    const { heard, follow } = listen();
    const long = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    const { run } = await start(ann.id, conversation.id, { text: `/pace 100\n/reply ${long}` }, { idempotencyKey: crypto.randomUUID() });
    follow(run.id);
    await until(async () => heard.length > 0, 5_000, 'first live output');
    const stopped = await cancel(ann.id, run.id);
    expect(stopped.status).toBe('cancelled');
    // The run is recorded only once the streaming call has stopped (NodeWork), so nothing follows its done.
    const last = heard.at(-1)!;
    expect(last.done).toBe(true);
    expect(last.text.length).toBeLessThan(long.length);
    const count = heard.length;
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toHaveLength(count);
    expect(liveRunCount()).toBe(0);
    const { messages } = await readThread(conversation.id);
    expect(messages.some((m) => m.getType() === 'ai' && m.content === long)).toBe(false);
  });

  it('a real provider (OpenAI-compatible, streamed SSE) shows its text while it is written; usage and model.call are kept', { timeout: 40_000 }, async () => {
    const stub = await startOpenAiStub({ holdAfterWords: 2 });
    stops.push(() => stub.close());
    process.env.OPENAI_API_KEY = 'sk-test-stub';
    process.env.OPENAI_BASE_URL = stub.baseURL;
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { model: 'openai:gpt-4.1-mini', toolGroups: ['utility'] });
    const { heard, follow } = listen();
    const { run } = await start(ann.id, conversation.id, { text: 'What is six times seven?' }, { idempotencyKey: crypto.randomUUID() });
    follow(run.id);
    // The second call answers in words and is held after two of them: they are live before the rest is written.
    await until(async () => heard.some((h) => h.text === 'The answer '), 20_000, 'the first two words');
    expect((await findRun(run.id))?.status).toBe('running');
    stub.release();
    const done = await finished(run.id, 20_000);
    expect(done).toMatchObject({ status: 'success', inputTokens: 22, outputTokens: 14 });
    expect(heard.at(-1)).toMatchObject({ text: 'The answer is [r1 calculator] 42.', done: true });
    // Asked for usage in the stream (ChatOpenAI streamUsage), and got it as reported, with the finish reasons.
    expect(stub.requests.every((r) => r.body.stream === true && r.body.stream_options?.include_usage === true)).toBe(true);
    const calls = ofType(await eventsOf(run.id), 'model.call');
    expect(calls.map((c) => [c.inputTokens, c.outputTokens, c.finishReason])).toEqual([
      [11, 7, 'tool_calls'],
      [11, 7, 'stop'],
    ]);
  });
});
