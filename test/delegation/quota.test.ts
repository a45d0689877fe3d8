import { afterEach, describe, expect, it } from 'vitest';
import { createConversation } from '@/server/agents/conversations';
import { overrideQuotasForTests } from '@/server/agents/quotas';
import { conversationWith, send } from '../agents/helpers';
import { makeUser } from '../support/users';
import { delegationsOf, taskCall, withDelegationScheduler } from './helpers';

withDelegationScheduler();
afterEach(() => overrideQuotasForTests());

describe('quotas: a child’s hidden conversation counts in the account’s conversation quota', () => {
  it('at the limit a child is refused; a child’s conversation takes a place a visible one then can’t', async () => {
    // What must not happen: delegation storing conversations past the account's quota (hidden ones are stored all
    // the same), or another account's conversations counting against this one.
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const bobs = await conversationWith(bob.id);
    overrideQuotasForTests({ conversationsPerAccount: 2 });
    const { agent, conversation } = await conversationWith(alice.id);
    // Conversation 2 of 2: the child's.
    const first = await send(alice.id, conversation.id, taskCall({ description: 'one', prompt: '/reply one' }));
    expect((await delegationsOf(first.id))[0]).toMatchObject({ status: 'completed' });
    await expect(createConversation(alice.id, agent.id)).rejects.toMatchObject({ code: 'conversation_limit' });
    // The next child would be the third.
    const second = await send(alice.id, conversation.id, taskCall({ description: 'two', prompt: '/reply two' }));
    const [refused] = await delegationsOf(second.id);
    expect(refused).toMatchObject({ status: 'failed', childRunId: null, childConversationId: null });
    expect((refused!.spec as { refused: Record<string, unknown> }).refused).toMatchObject({ error: 'quota_reached', limit: 2 });
    // Bob (one conversation, a different account) still has room for his second.
    await expect(createConversation(bob.id, bobs.agent.id)).resolves.toMatchObject({ ownerId: bob.id });
  });
});
