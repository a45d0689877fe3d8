import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatModel } from '@/server/agents/providers';
import { ScriptedChatModel } from '@/server/agents/scripted-model';
import { getState } from '@/server/agents/runs';
import { makeUser } from '../support/users';
import { conversationWith, send } from './helpers';
import { startOpenAiStub } from './openai-stub';

const saved = { ...process.env };
let stub: Awaited<ReturnType<typeof startOpenAiStub>>;

beforeAll(async () => {
  stub = await startOpenAiStub();
});
afterAll(async () => {
  process.env = saved;
  await stub.close();
});

describe('real provider path (initChatModel against a local OpenAI-compatible stub)', () => {
  it('runs openai:gpt-4.1-mini with a tool call: the tool runs and the reply arrives', async () => {
    process.env.OPENAI_API_KEY = 'sk-test-stub';
    process.env.OPENAI_BASE_URL = stub.baseURL;
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, {
      name: 'Real',
      model: 'openai:gpt-4.1-mini',
      toolGroups: ['utility'],
      instructions: 'Always use the calculator.',
    });
    const before = stub.requests.length;
    const run = await send(alice.id, conversation.id, 'What is six times seven?');
    expect(run).toMatchObject({ status: 'success', error: null, model: 'openai:gpt-4.1-mini', inputTokens: 22, outputTokens: 14 });

    const { messages } = await getState(alice.id, conversation.id);
    expect(messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'What is six times seven?'],
      ['assistant', ''],
      ['tool', '42'],
      // The stub echoes the tool result as the provider received it: with its receipt label (ADR 022).
      ['assistant', 'The answer is [r1 calculator] 42.'],
    ]);
    // The call's id is the server's (the provider's is metadata only), and the result pairs with it.
    const ourId = messages[1]!.toolCalls![0]!.id;
    expect(messages[1]!.toolCalls).toEqual([{ id: expect.stringMatching(/^call_[0-9a-f]{24}$/), name: 'calculator', args: { expression: '6*7' } }]);
    expect(ourId).not.toBe(`call_stub_${before + 1}`);
    expect(messages[2]!.toolCallId).toBe(ourId);

    const sent = stub.requests.slice(before);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.authorization).toBe('Bearer sk-test-stub');
    expect(sent[0]!.body.model).toBe('gpt-4.1-mini');
    expect(sent[0]!.body.tools!.map((t) => t.function.name).sort()).toEqual(['calculator', 'current_time']);
    // The system prompt holds framework text and the owner's instructions; the user's text is a user message.
    const [system, user] = sent[0]!.body.messages;
    expect(system!.role).toMatch(/^(system|developer)$/);
    expect(system!.content).toContain('Always use the calculator.');
    expect(system!.content).not.toContain('six times seven');
    expect(user).toMatchObject({ role: 'user', content: 'What is six times seven?' });
    // The thread keeps the tool's own text ('42'); the provider receives it labelled as receipt r1.
    // The history sent back names the call by the server's id, in the call and in its result alike.
    expect(sent[1]!.body.messages.at(-1)).toMatchObject({ role: 'tool', content: '[r1 calculator] 42', tool_call_id: ourId });
    expect(sent[1]!.body.messages.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: ourId }] });
  });

  it('a missing key fails that run with the exact message, and the process carries on', async () => {
    delete process.env.OPENAI_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    const alice = await makeUser('alice');
    const openai = await conversationWith(alice.id, { model: 'openai:gpt-4.1-mini' });
    const failed = await send(alice.id, openai.conversation.id, 'hello');
    expect(failed).toMatchObject({ status: 'error', error: 'Model openai:gpt-4.1-mini is not configured: set OPENAI_API_KEY' });

    const anthropic = await conversationWith(alice.id, { model: 'anthropic:claude-sonnet-4-5' });
    expect(await send(alice.id, anthropic.conversation.id, 'hello')).toMatchObject({
      status: 'error',
      error: 'Model anthropic:claude-sonnet-4-5 is not configured: set ANTHROPIC_API_KEY',
    });

    const scripted = await conversationWith(alice.id, { name: 'Still here' });
    expect((await send(alice.id, scripted.conversation.id, 'ping')).status).toBe('success');
    // The failed conversation takes a new message once configured.
    process.env.OPENAI_API_KEY = 'sk-test-stub';
    process.env.OPENAI_BASE_URL = stub.baseURL;
    expect((await send(alice.id, openai.conversation.id, 'again')).status).toBe('success');
  });

  it('builds each provider from its model string; an unparseable string is refused', async () => {
    process.env.OPENAI_API_KEY = 'k';
    process.env.ANTHROPIC_API_KEY = 'k';
    expect(await createChatModel({ name: 'S', model: 'scripted' })).toBeInstanceOf(ScriptedChatModel);
    for (const model of ['openai:gpt-4.1-mini', 'anthropic:claude-sonnet-4-5', 'ollama:llama3.2']) {
      const chat = await createChatModel({ name: 'X', model });
      expect(typeof chat.bindTools).toBe('function');
    }
    await expect(createChatModel({ name: 'X', model: 'Mystery:model' })).rejects.toThrow(/Model "Mystery:model" is not valid/);
    // A well-formed slug names a provider added on the Admin page (ADR 043): none by that name, so the run can't start.
    await expect(createChatModel({ name: 'X', model: 'mystery:model' })).rejects.toThrow(/there is no provider "mystery"/);
  });
});
