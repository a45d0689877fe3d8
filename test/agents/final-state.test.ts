import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { keepFinalMessages, takeFinalMessages } from '@/server/agents/final-state';

// server/agents/final-state.ts: a finished run's final messages wait for its job's finalize step, once, bounded.
describe("a run's kept final messages", () => {
  it('are taken once: a second take (a finalize step run again) finds none and reads the checkpoint', async () => {
    const messages = [new HumanMessage('ask'), new AIMessage('answer')];
    keepFinalMessages('run-a', messages);
    expect(takeFinalMessages('run-a')).toBe(messages);
    expect(takeFinalMessages('run-a')).toBeUndefined();
    expect(takeFinalMessages('never-kept')).toBeUndefined();
  });

  it('keep the newest 256 runs: the 257th evicts the oldest, and keeping a run again makes it the newest', async () => {
    const list = [new AIMessage('x')];
    for (let i = 0; i < 256; i++) keepFinalMessages(`run-${i}`, list);
    keepFinalMessages('run-0', list); // kept again: now the newest
    keepFinalMessages('run-256', list); // one past the bound: run-1 (the oldest) goes
    expect(takeFinalMessages('run-1')).toBeUndefined();
    expect(takeFinalMessages('run-0')).toBe(list);
    expect(takeFinalMessages('run-2')).toBe(list);
    expect(takeFinalMessages('run-256')).toBe(list);
  });
});
