import '../auth/support/next-auth';
import { beforeEach, describe, expect, it } from 'vitest';
import { GET as me } from '@/app/api/v1/me/route';
import { POST as disable } from '@/app/api/v1/admin/users/[id]/disable/route';
import { POST as enable } from '@/app/api/v1/admin/users/[id]/enable/route';
import { setAccountDisabled } from '@/server/admin/accounts';
import { findUserById } from '@/server/auth/users';
import { schema, writeTx } from '@/server/db';
import { call } from '../support/teams';
import { postCredentials, sessionFor, signInOverHttp } from '../auth/support/http-auth';
import { PASSWORD, makeAccount } from './helpers';

const meWith = async (headers: Record<string, string>) => (await me(new Request('http://localhost/api/v1/me', { headers }), undefined)).status;
const disableAs = (admin: { auth: Record<string, string> }, id: string) =>
  call(disable, { method: 'POST', headers: admin.auth, params: { id } });
const enableAs = (admin: { auth: Record<string, string> }, id: string) => call(enable, { method: 'POST', headers: admin.auth, params: { id } });

/** What next-auth's own credentials endpoint answers: where it redirects to. */
async function signInLocation(email: string, password = PASSWORD) {
  const res = await postCredentials({ email, password });
  return res.headers.get('location') ?? '';
}

// Each test counts admins from scratch.
beforeEach(async () => {
  await writeTx(async (tx) => {
    await tx.delete(schema.users);
    await tx.delete(schema.signInFailures);
  });
});

describe('disabling an account', () => {
  it('stops its bearer token and its cookie session on the very next request, and refuses sign-in', async () => {
    const admin = await makeAccount('admin', 'admin');
    const bo = await makeAccount('bo', 'member');
    const cookie = await signInOverHttp({ email: bo.email, password: PASSWORD });
    expect(await meWith(bo.auth)).toBe(200);
    expect(await meWith({ cookie })).toBe(200);

    const res = await disableAs(admin, bo.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: bo.id, disabledAt: expect.any(String) });

    expect(await meWith(bo.auth)).toBe(401);
    expect(await meWith({ cookie })).toBe(401);
    // next-auth's own session endpoint (the jwt callback) drops the session too.
    expect(await sessionFor(cookie)).toBeNull();
    // The right password no longer signs in, with the same answer as a wrong one.
    expect(await signInLocation(bo.email)).toContain('error=CredentialsSignin');
    expect(await signInLocation(bo.email, 'wrong password')).toContain('error=CredentialsSignin');
    // Other accounts are untouched.
    expect(await meWith(admin.auth)).toBe(200);
  });

  it('re-enabling lets the account sign in again; its old tokens and sessions stay ended', async () => {
    const admin = await makeAccount('admin', 'admin');
    const bo = await makeAccount('bo', 'member');
    const oldCookie = await signInOverHttp({ email: bo.email, password: PASSWORD });
    await disableAs(admin, bo.id);

    const res = await enableAs(admin, bo.id);
    expect(res).toMatchObject({ status: 200, body: { id: bo.id, disabledAt: null } });
    // Must not happen: re-enabling an account reviving the tokens it had when it was disabled (ADR 041).
    expect(await meWith(bo.auth)).toBe(401);
    expect(await meWith({ cookie: oldCookie })).toBe(401);
    const fresh = await signInOverHttp({ email: bo.email, password: PASSWORD });
    expect(await meWith({ cookie: fresh })).toBe(200);
  });

  it('disabling twice keeps the first time; enabling an enabled account is a no-op', async () => {
    const admin = await makeAccount('admin', 'admin');
    const bo = await makeAccount('bo', 'member');
    const first = await disableAs(admin, bo.id);
    const again = await disableAs(admin, bo.id);
    expect(again.body.disabledAt).toBe(first.body.disabledAt);
    await enableAs(admin, bo.id);
    expect((await enableAs(admin, bo.id)).body.disabledAt).toBeNull();
  });

  it('an admin cannot disable themselves (409), and nothing changes', async () => {
    const admin = await makeAccount('admin', 'admin');
    const res = await disableAs(admin, admin.id);
    expect(res).toMatchObject({ status: 409, body: { error: { code: 'cannot_disable_self' } } });
    expect((await findUserById(admin.id))!.disabledAt).toBeNull();
    expect(await meWith(admin.auth)).toBe(200);
  });

  it('the last enabled admin cannot be disabled, even by an admin disabled a moment earlier (two admins racing)', async () => {
    const ann = await makeAccount('ann', 'admin');
    const cy = await makeAccount('cy', 'admin');
    // Both passed the role check; Cy's request commits first.
    await setAccountDisabled(cy.id, ann.id, true);
    await expect(setAccountDisabled(ann.id, cy.id, true)).rejects.toThrow(expect.objectContaining({ status: 409, code: 'last_admin' }));
    expect((await findUserById(cy.id))!.disabledAt).toBeNull();
  });

  it('an admin may disable another admin while one stays enabled', async () => {
    const ann = await makeAccount('ann', 'admin');
    const cy = await makeAccount('cy', 'admin');
    expect((await disableAs(ann, cy.id)).status).toBe(200);
    expect(await meWith(cy.auth)).toBe(401);
  });

  it('an unknown account id answers 404', async () => {
    const admin = await makeAccount('admin', 'admin');
    expect((await disableAs(admin, 'no-such-user')).status).toBe(404);
    expect((await enableAs(admin, 'no-such-user')).status).toBe(404);
  });
});
