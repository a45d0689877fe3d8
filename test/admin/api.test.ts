import '../auth/support/next-auth';
import { beforeEach, describe, expect, it } from 'vitest';
import { DELETE as revokeInvitationRoute } from '@/app/api/v1/admin/invitations/[id]/route';
import { GET as listInvitationsRoute, POST as createInvitationRoute } from '@/app/api/v1/admin/invitations/route';
import { POST as createUserRoute } from '@/app/api/v1/admin/users/route';
import { registerAccount } from '@/server/auth/registration';
import { findUserByEmail } from '@/server/auth/users';
import { getDb, schema, writeTx } from '@/server/db';
import { signInOverHttp } from '../auth/support/http-auth';
import { call } from '../support/teams';
import { PASSWORD, makeAccount } from './helpers';

beforeEach(async () => {
  await writeTx(async (tx) => {
    await tx.delete(schema.users);
    await tx.delete(schema.signInFailures);
  });
});

const newEmail = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}@example.test`;

describe('POST /api/v1/admin/users', () => {
  it('creates a member with an initial password while sign-up is closed; the person can sign in with it', async () => {
    const admin = await makeAccount('admin', 'admin');
    const email = newEmail('Dee');
    const res = await call(createUserRoute, { method: 'POST', headers: admin.auth, body: { email: email.toUpperCase(), password: 'initial pass', name: ' Dee ' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      email: email.toLowerCase(),
      name: 'Dee',
      role: 'member',
      disabledAt: null,
      createdAt: expect.any(String),
      usage: { runs: 0, modelTokens: 0, cost: '0.00', unknownCostRuns: 0, activeJobs: 0, agents: 0, conversations: 0 },
    });
    expect(await signInOverHttp({ email, password: 'initial pass' })).toMatch(/authjs\.session-token=/);
  });

  it('creates an admin when asked', async () => {
    const admin = await makeAccount('admin', 'admin');
    const res = await call(createUserRoute, { method: 'POST', headers: admin.auth, body: { email: newEmail('eve'), password: 'initial pass', role: 'admin' } });
    expect(res.body.role).toBe('admin');
  });

  it('names each bad field (422), refuses unknown fields and a taken email (409), writing nothing', async () => {
    const admin = await makeAccount('admin', 'admin');
    const bad = await call(createUserRoute, { method: 'POST', headers: admin.auth, body: { email: 'nope', password: 'short', role: 'owner', extra: 1 } });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({
      error: {
        code: 'validation_error',
        fields: {
          email: 'Enter a valid email address',
          password: 'Must be at least 8 characters',
          role: 'Must be "member" or "admin"',
          extra: 'Unknown field',
        },
      },
    });
    const taken = await call(createUserRoute, { method: 'POST', headers: admin.auth, body: { email: admin.email, password: 'long enough' } });
    expect(taken).toMatchObject({ status: 409, body: { error: { code: 'email_taken' } } });
    expect(await getDb().select().from(schema.users)).toHaveLength(1);
  });
});

describe('invitations over the API', () => {
  it('create (code shown once), list (no code), use, then it shows as used and cannot be revoked', async () => {
    const admin = await makeAccount('admin', 'admin');
    const created = await call(createInvitationRoute, { method: 'POST', headers: admin.auth, body: { expiresInDays: 30, note: 'for Fay' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const code = created.body.code as string;
    expect(code).toMatch(/^inv_[A-Za-z0-9_-]{32}$/);
    expect(created.body).toMatchObject({ note: 'for Fay', status: 'open', path: `/sign-up?invite=${code}`, usedBy: null });
    const days = (Date.parse(created.body.expiresAt as string) - Date.parse(created.body.createdAt as string)) / 86_400_000;
    expect(Math.round(days)).toBe(30);

    const listed = await call(listInvitationsRoute, { headers: admin.auth });
    expect(listed.raw).not.toContain(code);
    expect((listed.body.invitations as unknown[])[0]).not.toHaveProperty('code');
    // Only a hash is stored.
    expect(JSON.stringify(await getDb().select().from(schema.invitations))).not.toContain(code);

    const fay = await registerAccount({ email: newEmail('fay'), password: PASSWORD, invite: code }, 'test');
    const after = await call(listInvitationsRoute, { headers: admin.auth });
    expect((after.body.invitations as unknown[])[0]).toMatchObject({ status: 'used', usedBy: { id: fay.id, email: fay.email } });

    const revoke = await call(revokeInvitationRoute, { method: 'DELETE', headers: admin.auth, params: { id: created.body.id as string } });
    expect(revoke).toMatchObject({ status: 409, body: { error: { code: 'invitation_used' } } });
  });

  it('revoking an open invitation (204) makes its link useless', async () => {
    const admin = await makeAccount('admin', 'admin');
    const created = await call(createInvitationRoute, { method: 'POST', headers: admin.auth, body: {} });
    expect(created.body.status).toBe('open');
    const revoke = await call(revokeInvitationRoute, { method: 'DELETE', headers: admin.auth, params: { id: created.body.id as string } });
    expect(revoke.status).toBe(204);
    const listed = await call(listInvitationsRoute, { headers: admin.auth });
    expect((listed.body.invitations as unknown[])[0]).toMatchObject({ status: 'revoked', revokedAt: expect.any(String) });
    const email = newEmail('late');
    await expect(registerAccount({ email, password: PASSWORD, invite: created.body.code as string }, 'test')).rejects.toMatchObject({
      code: 'invitation_invalid',
    });
    expect(await findUserByEmail(email)).toBeUndefined();
  });

  it('expiry is one of 1, 7 or 30 days (default 7); a note is bounded', async () => {
    const admin = await makeAccount('admin', 'admin');
    const byDefault = await call(createInvitationRoute, { method: 'POST', headers: admin.auth, body: {} });
    expect(Math.round((Date.parse(byDefault.body.expiresAt as string) - Date.parse(byDefault.body.createdAt as string)) / 86_400_000)).toBe(7);
    for (const expiresInDays of [0, 2, 31, 365, '7', null]) {
      const res = await call(createInvitationRoute, { method: 'POST', headers: admin.auth, body: { expiresInDays } });
      expect(res.status, JSON.stringify(expiresInDays)).toBe(422);
      expect(res.body).toMatchObject({ error: { fields: { expiresInDays: 'Must be one of 1, 7, 30' } } });
    }
    const atLimit = await call(createInvitationRoute, { method: 'POST', headers: admin.auth, body: { note: 'n'.repeat(200) } });
    expect(atLimit.status).toBe(201);
    const past = await call(createInvitationRoute, { method: 'POST', headers: admin.auth, body: { note: 'n'.repeat(201) } });
    expect(past.status).toBe(422);
  });

  it('revoking an unknown id answers 404', async () => {
    const admin = await makeAccount('admin', 'admin');
    expect((await call(revokeInvitationRoute, { method: 'DELETE', headers: admin.auth, params: { id: 'nope' } })).status).toBe(404);
  });
});
