import { scope } from '../support/action-session';
import { beforeEach, describe, expect, it } from 'vitest';

const { createTokenAction, revokeTokenAction } = await import('@/app/(app)/settings/actions');
const { GET: me } = await import('@/app/api/v1/me/route');
const { createApiToken } = await import('@/server/auth/tokens');
const { schema, writeTx } = await import('@/server/db');
const { makeUser } = await import('../support/users');
const { rowsOf } = await import('./support');

const PASSWORD = 'correct horse battery';
const READ_ONLY = { ok: false, error: { code: 'read_only_token', message: expect.stringMatching(/read-only/) } };

beforeEach(async () => {
  await writeTx((tx) => tx.delete(schema.signInFailures));
});

describe('a read-only token on a server action', () => {
  it('must not create or revoke anything, whether the action is called from script (Next-Action) or a posted form', async () => {
    const ann = await makeUser('ann');
    const reader = await createApiToken(ann.id, 'reader', { scope: 'read' });
    const full = await createApiToken(ann.id, 'writer', { scope: 'full' });
    const before = await rowsOf(schema.apiTokens);
    const markers: Array<Record<string, string>> = [{ 'next-action': 'abc123' }, { 'content-type': 'multipart/form-data; boundary=x' }];
    for (const marker of markers) {
      scope.headers = new Headers({ authorization: `Bearer ${reader.token}`, ...marker });
      expect(await createTokenAction({ name: 'minted', password: PASSWORD, scope: 'full' })).toEqual(READ_ONLY);
      expect(await revokeTokenAction(full.info.id)).toEqual(READ_ONLY);
    }
    // Must not happen: a read-only token minting a full one, or revoking any, through the Settings actions.
    const after = JSON.parse(await rowsOf(schema.apiTokens)) as Array<Array<{ id: string; revokedAt: unknown; name: string }>>;
    const strip = (rows: Array<Array<{ id: string; revokedAt: unknown; name: string }>>) => rows[0]!.map((r) => `${r.id}:${r.name}:${String(r.revokedAt)}`).sort();
    expect(strip(after)).toEqual(strip(JSON.parse(before)));
    expect((await me(new Request('http://localhost/api/v1/me', { headers: ann.auth }), undefined)).status).toBe(200);
  });
});
