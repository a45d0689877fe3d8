import { describe, expect, it } from 'vitest';
import { createApiToken, listApiTokens, revokeApiToken, userForToken } from '@/server/auth/tokens';
import { makeUser } from '../support/users';

describe('API tokens', () => {
  it('resolve to their user until revoked, and are stored only as a hash', async () => {
    const alice = await makeUser('alice');
    const { token, info } = createApiToken(alice.id, 'cli');
    expect(userForToken(token)?.id).toBe(alice.id);
    const { getDb } = await import('@/server/db');
    const stored = getDb().$client.prepare('select token_hash from api_tokens where id = ?').get(info.id) as { token_hash: string };
    expect(stored.token_hash).not.toContain(token);
    revokeApiToken(alice.id, info.id);
    expect(userForToken(token)).toBeNull();
  });

  it("can't be listed or revoked by another owner", async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { token, info } = createApiToken(alice.id, 'mine');
    expect(listApiTokens(bob.id).map((t) => t.id)).not.toContain(info.id);
    expect(() => revokeApiToken(bob.id, info.id)).toThrow(/not found/);
    expect(userForToken(token)?.id).toBe(alice.id);
  });
});
