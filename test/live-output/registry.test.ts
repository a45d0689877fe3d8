import { afterEach, describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { beginLiveResponse, finishLiveOutput, liveRunCount, setLiveOutputClock, type LiveScope } from '@/server/agents/live-output/registry';
import { systemClock } from '@/server/agents/live-output/throttle';
import { frozenClock } from '../support/frozen-clock';
import { pushBus, type LiveOutputChange } from '@/server/push/bus';
import { currentLiveOutput } from '@/server/push/live-output';

const scope = (n: number | string, ownerId = 'owner-a'): LiveScope => ({ ownerId, conversationId: `c-${n}`, runId: `run-${n}`, teamId: 't-1', jobId: `job-${n}` });
const stops: Array<() => void> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  setLiveOutputClock(systemClock);
});

function heard() {
  const all: LiveOutputChange[] = [];
  const on = (c: LiveOutputChange) => all.push(c);
  pushBus().on('liveOutput', on);
  stops.push(() => pushBus().off('liveOutput', on));
  return all;
}

describe('live output registry (per running run, bounded, throttled)', () => {
  it("a retry drops the failed attempt's text at once (even within the throttle gap) and says so until the new attempt writes", () => {
    const { clock, advance } = frozenClock();
    setLiveOutputClock(clock);
    const messages = heard();
    const live = beginLiveResponse(scope('retry'));
    live.append('Broken 東京 😀 ');
    live.append('half');
    live.retrying({ attempt: 2, maxAttempts: 3 });
    // Not stored anywhere: what the viewers (and a viewer connecting now) see is the notice without the text.
    expect(messages.at(-1)).toMatchObject({ text: '', truncated: false, retrying: { attempt: 2, maxAttempts: 3 }, done: false });
    expect(currentLiveOutput('owner-a', (c) => c.runId === 'run-retry')).toEqual([expect.objectContaining({ text: '', retrying: { attempt: 2, maxAttempts: 3 } })]);
    advance(LIMITS.liveOutput.publishMs);
    live.append('Whole');
    advance(LIMITS.liveOutput.publishMs);
    expect(messages.at(-1)).toMatchObject({ text: 'Whole', retrying: null });
    finishLiveOutput('run-retry');
    expect(messages.at(-1)).toMatchObject({ text: 'Whole', retrying: null, done: true });
  });

  it("a retry before the attempt wrote anything leaves the previous response's whole text, with the notice; a run that ends while retrying says done without it", () => {
    const messages = heard();
    const first = beginLiveResponse(scope('retry2'));
    first.append('Earlier turn.');
    first.end();
    const second = beginLiveResponse(scope('retry2'));
    second.retrying({ attempt: 2, maxAttempts: 2 });
    expect(messages.at(-1)).toMatchObject({ text: 'Earlier turn.', retrying: { attempt: 2, maxAttempts: 2 } });
    finishLiveOutput('run-retry2');
    expect(messages.at(-1)).toMatchObject({ done: true, retrying: null });
  });

  it('publishes the first words at once, coalesces a burst, flushes at the end of a response and says done once', async () => {
    const { clock, advance } = frozenClock();
    setLiveOutputClock(clock);
    const messages = heard();
    const live = beginLiveResponse(scope('t1'));
    live.append('one ');
    live.append('two ');
    live.append('three');
    expect(messages.map((m) => m.text)).toEqual(['one ']);
    advance(LIMITS.liveOutput.publishMs);
    expect(messages.map((m) => m.text)).toEqual(['one ', 'one two three']);
    live.append(' four');
    live.end();
    expect(messages.map((m) => m.text)).toEqual(['one ', 'one two three', 'one two three four']);
    finishLiveOutput('run-t1');
    finishLiveOutput('run-t1');
    expect(messages.at(-1)).toMatchObject({ runId: 'run-t1', jobId: 'job-t1', text: 'one two three four', done: true });
    expect(messages.filter((m) => m.done)).toHaveLength(1);
    // Finished: later chunks (a call the abort did not stop at once) are dropped, nothing is kept.
    live.append('late');
    advance(10_000);
    expect(messages).toHaveLength(4);
    expect(liveRunCount()).toBe(0);
    expect(currentLiveOutput('owner-a', () => true)).toEqual([]);
  });

  it("the next response's first words replace the text; a response without text leaves it", async () => {
    const { clock, advance } = frozenClock();
    setLiveOutputClock(clock);
    const messages = heard();
    const first = beginLiveResponse(scope('t2'));
    first.append('Let me check.');
    first.end();
    const toolsOnly = beginLiveResponse(scope('t2'));
    toolsOnly.end();
    advance(LIMITS.liveOutput.publishMs);
    const answer = beginLiveResponse(scope('t2'));
    answer.append('The answer');
    expect(messages.map((m) => m.text)).toEqual(['Let me check.', 'The answer']);
    finishLiveOutput('run-t2');
  });

  it(`keeps at most ${LIMITS.liveOutput.maxRuns} runs: one more ends the oldest (with done), for viewers too`, async () => {
    const messages = heard();
    const before = liveRunCount();
    const runs = Array.from({ length: LIMITS.liveOutput.maxRuns - before }, (_, i) => `cap-${i}`);
    for (const n of runs) beginLiveResponse(scope(n)).append(`text ${n}`);
    expect(liveRunCount()).toBe(LIMITS.liveOutput.maxRuns);
    expect(messages.some((m) => m.done)).toBe(false);
    beginLiveResponse(scope('cap-past')).append('one past');
    expect(liveRunCount()).toBe(LIMITS.liveOutput.maxRuns);
    expect(messages.filter((m) => m.done).map((m) => m.runId)).toEqual(['run-cap-0']);
    const held = currentLiveOutput('owner-a', (c) => c.runId.startsWith('run-cap-'));
    expect(held.map((c) => c.runId)).not.toContain('run-cap-0');
    expect(held.map((c) => c.runId)).toContain('run-cap-past');
    for (const n of [...runs, 'cap-past']) finishLiveOutput(`run-${n}`);
    expect(liveRunCount()).toBe(0);
  });

  it("a viewer's catch-up read holds only the owner's runs", async () => {
    beginLiveResponse(scope('mine', 'owner-a')).append('mine');
    beginLiveResponse(scope('theirs', 'owner-b')).append('theirs');
    expect(currentLiveOutput('owner-a', () => true).map((c) => c.text)).toEqual(['mine']);
    expect(currentLiveOutput('owner-b', () => true).map((c) => c.text)).toEqual(['theirs']);
    finishLiveOutput('run-mine');
    finishLiveOutput('run-theirs');
  });

  it('outside a run (no run context) nothing is kept or published', async () => {
    const messages = heard();
    const live = beginLiveResponse(null);
    live.append('text');
    live.end();
    expect(messages).toEqual([]);
    expect(liveRunCount()).toBe(0);
  });
});
