import { signIn } from '../support/action-session';
import { describe, expect, it } from 'vitest';
import { adminStateSnapshot, makeAccount } from '../admin/helpers';

const actions = await import('@/app/(app)/admin/provider-actions');
const { createProvider } = await import('@/server/providers/store');

type Action = (...args: unknown[]) => Promise<{ ok: boolean; data?: unknown; error?: unknown }>;

async function fixtures() {
  const admin = await makeAccount('admin', 'admin');
  const member = await makeAccount('member', 'member');
  const provider = await createProvider({ kind: 'openai', slug: `p-${crypto.randomUUID().slice(0, 6)}`, name: 'P', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-action-SECRET-1' });
  const args: Record<string, unknown[]> = {
    createProviderAction: [{ kind: 'ollama', slug: `n-${crypto.randomUUID().slice(0, 6)}`, name: 'N', baseUrl: 'http://127.0.0.1:9' }],
    updateProviderAction: [provider.id, { name: 'Renamed', apiKey: 'sk-other-SECRET-2' }],
    testProviderAction: [provider.id],
    deleteProviderAction: [provider.id],
  };
  return { admin, member, args };
}

describe('the Admin page provider actions', () => {
  it('a member gets not_found from every one, and nothing changes', async () => {
    // What must not happen: a non-admin adding, changing, testing (a call with the key) or removing a provider.
    const f = await fixtures();
    expect(Object.keys(actions).sort()).toEqual(Object.keys(f.args).sort());
    signIn(f.member);
    for (const [name, action] of Object.entries(actions) as [string, Action][]) {
      const before = await adminStateSnapshot();
      expect(await action(...f.args[name]!), name).toEqual({ ok: false, error: { code: 'not_found', message: 'Resource not found' } });
      expect(await adminStateSnapshot(), `${name} changed state`).toBe(before);
    }
  });

  it('signed out, every one answers unauthorized', async () => {
    const f = await fixtures();
    for (const [name, action] of Object.entries(actions) as [string, Action][]) {
      expect(await action(...f.args[name]!), name).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    }
  });

  it('an admin may use each (in this order), and no answer carries a key', async () => {
    const f = await fixtures();
    signIn(f.admin);
    for (const name of ['createProviderAction', 'updateProviderAction', 'testProviderAction', 'deleteProviderAction']) {
      const result = await (actions as unknown as Record<string, Action>)[name]!(...f.args[name]!);
      expect(result, name).toMatchObject({ ok: true });
      expect(JSON.stringify(result)).not.toContain('SECRET');
    }
  });
});
