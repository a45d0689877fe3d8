import { describe, expect, it } from 'vitest';
import { makeUser } from '../support/users';
import { conversationWith, send } from '../agents/helpers';
import { filler } from '../compaction/helpers';
import { eventsOf, expectDense, ofType, typesOf } from './helpers';

describe('system model calls are observed and marked', () => {
  it('a compaction summary is a model.call with system "summary", before the agent’s own call, and counts in the run’s totals', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { compactAtTokens: 1_000 });
    expect((await send(ann.id, conversation.id, filler(700, 'aaaa'))).status).toBe('success');
    const run = await send(ann.id, conversation.id, filler(600, 'bbbb'));
    expect(run.status).toBe('success');
    const events = await eventsOf(run.id);
    expectDense(events);
    expect(typesOf(events)).toEqual(['run.started', 'model.call', 'compaction', 'model.call', 'step.assistant', 'run.finished']);
    const [summary, agentCall] = ofType(events, 'model.call');
    expect(summary).toMatchObject({ system: 'summary', model: 'scripted', inputTokens: expect.any(Number), outputTokens: expect.any(Number) });
    expect(agentCall).not.toHaveProperty('system');
    // The framework's call spent tokens for this run: the run's totals include it.
    expect(run).toMatchObject({
      modelCalls: 2,
      unreportedCalls: 0,
      inputTokens: summary!.inputTokens! + agentCall!.inputTokens!,
      outputTokens: summary!.outputTokens! + agentCall!.outputTokens!,
    });
  });
});
