import { describe, expect, it } from 'vitest';
import { getState } from '@/server/agents/runs';
import { makeUser } from '../support/users';
import { conversationWith, send } from './helpers';

describe('scripted model through the real graph', () => {
  it('answers plain text with "<name> received: <first line>"', async () => {
    const alice = await makeUser('alice');
    const { conversation } = conversationWith(alice.id, { name: 'Echo' });
    const run = await send(alice.id, conversation.id, 'Hello there\nsecond line');
    expect(run.status).toBe('success');
    const state = await getState(alice.id, conversation.id);
    expect(state.messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Hello there\nsecond line'],
      ['assistant', 'Echo received: Hello there'],
    ]);
    expect(run.inputTokens).toBeGreaterThan(0);
    expect(run.outputTokens).toBe(Math.ceil('Echo received: Hello there'.length / 4));
  });

  it('runs /call directives one per turn through the ToolNode and reports each result', async () => {
    const alice = await makeUser('alice');
    const { conversation } = conversationWith(alice.id, { name: 'Calc', toolGroups: ['utility'] });
    const run = await send(alice.id, conversation.id, 'Please compute\n/call calculator {"expression":"(2+3)*4"}\n/call calculator {"expression":"2^10"}');
    expect(run.status).toBe('success');
    const { messages } = await getState(alice.id, conversation.id);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(messages[1]!.toolCalls).toEqual([{ id: expect.any(String), name: 'calculator', args: { expression: '(2+3)*4' } }]);
    expect(messages[2]).toMatchObject({ role: 'tool', toolName: 'calculator', text: '20', toolCallId: messages[1]!.toolCalls![0]!.id });
    expect(messages[4]).toMatchObject({ toolName: 'calculator', text: '1024' });
    expect(messages[5]!.text).toBe('Calc: done\n[calculator] 20\n[calculator] 1024');
  });
});
