import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '@/server/db';
import { createProvider, deleteProvider, updateProvider } from '@/server/providers/store';
import { conversationWith, send } from '../agents/helpers';
import { startOpenAiStub } from '../agents/openai-stub';
import { makeUser } from '../support/users';

/**
 * An agent whose model names a managed provider (`<slug>:<model>`, ADR 043) runs against it, read when the run
 * starts: a key changed on the Admin page is used by the next run, and a removed provider fails the run with a
 * message that names it while the agent stays as it was.
 */
let stub: Awaited<ReturnType<typeof startOpenAiStub>>;
beforeAll(async () => {
  stub = await startOpenAiStub();
});
afterAll(async () => {
  await stub.close();
});

describe('runs on a managed provider', () => {
  it('runs through it with its key; the next run uses a changed key; after removal the run fails naming it', async () => {
    const provider = await createProvider({ kind: 'openai', slug: 'lab-stub', name: 'Lab stub', baseUrl: stub.baseURL, apiKey: 'sk-first-1111' });
    const alice = await makeUser('alice');
    const { agent, conversation } = await conversationWith(alice.id, { model: 'lab-stub:gpt-4o', toolGroups: ['utility'] });

    const before = stub.requests.length;
    expect(await send(alice.id, conversation.id, 'six times seven?')).toMatchObject({ status: 'success', error: null, model: 'lab-stub:gpt-4o' });
    const first = stub.requests.slice(before);
    expect(first.length).toBeGreaterThan(0);
    expect(first.every((r) => r.authorization === 'Bearer sk-first-1111' && r.body.model === 'gpt-4o')).toBe(true);

    await updateProvider(provider.id, { apiKey: 'sk-second-2222' });
    const mark = stub.requests.length;
    expect((await send(alice.id, conversation.id, 'again')).status).toBe('success');
    expect(stub.requests.slice(mark).map((r) => r.authorization)).toContain('Bearer sk-second-2222');
    expect(stub.requests.slice(mark).map((r) => r.authorization)).not.toContain('Bearer sk-first-1111');

    await deleteProvider(provider.id);
    const failed = await send(alice.id, conversation.id, 'and now?');
    expect(failed.status).toBe('error');
    expect(failed.error).toMatch(/^Model lab-stub:gpt-4o is not configured: there is no provider "lab-stub"/);
    // What must not happen: the failure leaking the removed provider's key.
    expect(failed.error).not.toContain('2222');
    // The agent is left as it was, still editable: its model string unchanged.
    const [row] = await getDb().select().from(schema.agents).where(eq(schema.agents.id, agent.id));
    expect(row!.model).toBe('lab-stub:gpt-4o');
  });

  // The environment's providers (openai:, anthropic:, ollama:) are tested in test/agents/providers.test.ts.
  it('a scripted agent is unaffected by managed providers', async () => {
    const bob = await makeUser('bob');
    const { conversation } = await conversationWith(bob.id, {});
    expect((await send(bob.id, conversation.id, 'ping')).status).toBe('success');
  });
});
