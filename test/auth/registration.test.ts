import './support/next-auth';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * Registration: who may create their own account (server/auth/registration.ts), through the server function and
 * through the sign-up form's post (app/(auth)/sign-up/submit). The route handler runs outside Next here, as in
 * form-posts.test.ts: next/headers and next-auth's request-scoped helpers are stood in for by
 * support/request-scope.ts (the same steps over next-auth's real HTTP handlers).
 */
vi.mock('next/headers', async () => (await import('./support/request-scope')).nextHeadersMock());
vi.mock('@/server/auth/config', async (importOriginal) =>
  (await import('./support/request-scope')).authConfigMock(await importOriginal()),
);

const { scope, resetScope } = await import('./support/request-scope');
const { post } = await import('./support/form-post');
const { LIMITS } = await import('@/lib/limits');
const { registerAccount, signUpAccess } = await import('@/server/auth/registration');
const { createInvitation, revokeInvitation } = await import('@/server/auth/invitations');
const { eventsInWindow, setSignInClock } = await import('@/server/auth/rate-limit');
const { createUser, findUserByEmail, signUpEnabled } = await import('@/server/auth/users');
const { getDb, schema, writeTx } = await import('@/server/db');

const PASSWORD = 'correct horse battery';
const T0 = Date.parse('2031-06-01T00:00:00Z');
let now = T0;
let seq = 0;
const email = (label: string) => `${label}-${++seq}-${crypto.randomUUID().slice(0, 6)}@example.test`;
const ADDRESS = '203.0.113.10';

beforeEach(async () => {
  // Every test starts from an instance without accounts (cascades to invitations, tokens, …).
  await writeTx(async (tx) => {
    await tx.delete(schema.users);
    await tx.delete(schema.signInFailures);
  });
  resetScope();
  now = T0;
  setSignInClock(() => now);
  // One reverse proxy in front: X-Forwarded-For names the client, so tests can speak from several addresses.
  vi.stubEnv('TRUST_PROXY', '1');
  vi.stubEnv('ALLOW_SIGNUP', '');
});
afterEach(() => {
  setSignInClock();
  vi.unstubAllEnvs();
});

const users = async () => await getDb().select().from(schema.users);
const admins = async () => (await users()).filter((u) => u.role === 'admin');
const invitationRow = async (id: string) => (await getDb().select().from(schema.invitations).where(eq(schema.invitations.id, id)))[0]!;

/** The sign-up form's post from this app's page, from ADDRESS. */
const signUpForm = (fields: Record<string, string>) => post('sign-up', fields, { 'x-forwarded-for': ADDRESS });

describe('the first account', () => {
  it('becomes the admin; later ones are members', async () => {
    vi.stubEnv('ALLOW_SIGNUP', 'true');
    const first = await registerAccount({ email: email('first'), password: PASSWORD }, ADDRESS);
    const second = await registerAccount({ email: email('second'), password: PASSWORD }, '203.0.113.11');
    expect(first.role).toBe('admin');
    expect(second.role).toBe('member');
    expect((await admins()).map((u) => u.id)).toEqual([first.id]);
  });

  it('is open to sign up while the instance has no account, even with ALLOW_SIGNUP unset', async () => {
    expect(await signUpEnabled()).toBe(true);
    expect(await signUpAccess()).toBe('open');
    await registerAccount({ email: email('first'), password: PASSWORD }, ADDRESS);
    expect(await signUpEnabled()).toBe(false);
    expect(await signUpAccess()).toBe('closed');
  });

  it('two concurrent first sign-ups make exactly one admin; the other is refused as closed', async () => {
    const results = await Promise.allSettled(
      ['a', 'b', 'c'].map((label, i) => registerAccount({ email: email(label), password: PASSWORD }, `198.51.100.${i}`)),
    );
    const made = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    expect(made).toHaveLength(1);
    expect(refused.map((r) => (r as PromiseRejectedResult).reason)).toEqual([
      expect.objectContaining({ status: 403, code: 'signup_closed' }),
      expect.objectContaining({ status: 403, code: 'signup_closed' }),
    ]);
    expect(await users()).toHaveLength(1);
    expect(await admins()).toHaveLength(1);
  });

  it('with ALLOW_SIGNUP=true, concurrent first sign-ups all succeed and exactly one is admin', async () => {
    vi.stubEnv('ALLOW_SIGNUP', 'true');
    const made = await Promise.all(
      ['a', 'b', 'c', 'd'].map((label, i) => registerAccount({ email: email(label), password: PASSWORD }, `198.51.100.${i}`)),
    );
    expect(made.filter((u) => u.role === 'admin')).toHaveLength(1);
    expect(await admins()).toHaveLength(1);
    expect(await users()).toHaveLength(4);
  });

  it('the operator tools (createUser) follow the same rule: first is admin, concurrent firsts make one admin', async () => {
    const made = await Promise.all([1, 2, 3].map((i) => createUser({ email: email(`cli${i}`), password: PASSWORD })));
    expect(made.filter((u) => u.role === 'admin')).toHaveLength(1);
    expect(await admins()).toHaveLength(1);
    // An explicit role wins (the CLI's --admin, the admin page's choice).
    const extra = await createUser({ email: email('extra'), password: PASSWORD }, { role: 'admin' });
    expect(extra.role).toBe('admin');
  });
});

describe('after the first account', () => {
  it('sign-up is closed: 403 signup_closed, no account written, nothing counted against the address', async () => {
    await createUser({ email: email('admin'), password: PASSWORD });
    const address = email('late');
    await expect(registerAccount({ email: address, password: PASSWORD }, ADDRESS)).rejects.toMatchObject({
      status: 403,
      code: 'signup_closed',
      message: 'Sign-up is closed on this server. Ask its admin for an invitation link.',
    });
    expect(await findUserByEmail(address)).toBeUndefined();
    expect(await eventsInWindow(`signup:address:${ADDRESS}`, LIMITS.signUp.windowMs)).toBe(0);
  });

  it.each(['false', '0', 'no', 'off', '', 'maybe'])('ALLOW_SIGNUP=%j keeps it closed', async (value) => {
    await createUser({ email: email('admin'), password: PASSWORD });
    vi.stubEnv('ALLOW_SIGNUP', value);
    expect(await signUpEnabled()).toBe(false);
    await expect(registerAccount({ email: email('late'), password: PASSWORD }, ADDRESS)).rejects.toMatchObject({ code: 'signup_closed' });
  });

  it.each(['true', 'TRUE', '1', 'yes', 'on'])('ALLOW_SIGNUP=%j opens it to anyone (as members)', async (value) => {
    await createUser({ email: email('admin'), password: PASSWORD });
    vi.stubEnv('ALLOW_SIGNUP', value);
    expect(await signUpEnabled()).toBe(true);
    const user = await registerAccount({ email: email('open'), password: PASSWORD }, ADDRESS);
    expect(user.role).toBe('member');
  });

  it('the decision is made again inside the write transaction: closing between the check and the write refuses', async () => {
    await createUser({ email: email('admin'), password: PASSWORD });
    vi.stubEnv('ALLOW_SIGNUP', 'true');
    const address = email('racer');
    const pending = registerAccount({ email: address, password: PASSWORD }, ADDRESS);
    // The early check passed synchronously; the operator closes sign-up while the password is being hashed.
    vi.stubEnv('ALLOW_SIGNUP', 'false');
    await expect(pending).rejects.toMatchObject({ code: 'signup_closed' });
    expect(await findUserByEmail(address)).toBeUndefined();
  });
});

describe('invitations', () => {
  async function withAdmin() {
    const admin = await createUser({ email: email('admin'), password: PASSWORD });
    expect(admin.role).toBe('admin');
    return admin;
  }

  it('admit one person while sign-up is closed, once; the invitation records who used it', async () => {
    const admin = await withAdmin();
    const invitation = await createInvitation(admin.id, { expiresInDays: 7 });
    expect(await signUpAccess(invitation.code)).toBe('invited');
    const user = await registerAccount({ email: email('invited'), password: PASSWORD, invite: invitation.code }, ADDRESS);
    expect(user.role).toBe('member');
    expect(await invitationRow(invitation.id)).toMatchObject({ usedById: user.id, usedAt: expect.any(Date) });

    const again = email('again');
    await expect(registerAccount({ email: again, password: PASSWORD, invite: invitation.code }, ADDRESS)).rejects.toMatchObject({
      status: 403,
      code: 'invitation_invalid',
    });
    expect(await findUserByEmail(again)).toBeUndefined();
    expect(await signUpAccess(invitation.code)).toBe('closed');
  });

  it('an expired invitation admits no one (expiry is exclusive: expiresAt itself is too late)', async () => {
    const admin = await withAdmin();
    const invitation = await createInvitation(admin.id, { expiresInDays: 1 });
    await writeTx((tx) =>
      tx
        .update(schema.invitations)
        .set({ expiresAt: new Date(Date.now() - 1) })
        .where(eq(schema.invitations.id, invitation.id)),
    );
    const address = email('late');
    await expect(registerAccount({ email: address, password: PASSWORD, invite: invitation.code }, ADDRESS)).rejects.toMatchObject({
      code: 'invitation_invalid',
    });
    expect(await findUserByEmail(address)).toBeUndefined();
    expect((await invitationRow(invitation.id)).usedAt).toBeNull();
  });

  it('a revoked invitation admits no one; a used one cannot be revoked (409); revoking twice is harmless', async () => {
    const admin = await withAdmin();
    const revoked = await createInvitation(admin.id, { expiresInDays: 7 });
    await revokeInvitation(revoked.id);
    await revokeInvitation(revoked.id);
    await expect(registerAccount({ email: email('x'), password: PASSWORD, invite: revoked.code }, ADDRESS)).rejects.toMatchObject({
      code: 'invitation_invalid',
    });

    const used = await createInvitation(admin.id, { expiresInDays: 7 });
    await registerAccount({ email: email('y'), password: PASSWORD, invite: used.code }, ADDRESS);
    await expect(revokeInvitation(used.id)).rejects.toThrow(expect.objectContaining({ status: 409, code: 'invitation_used' }));
    expect((await invitationRow(used.id)).revokedAt).toBeNull();
    await expect(revokeInvitation('no-such-id')).rejects.toThrow(expect.objectContaining({ status: 404 }));
  });

  it('an unknown or malformed code admits no one and the page says the link is not valid', async () => {
    await withAdmin();
    for (const code of ['inv_not-a-real-code', 'garbage', `inv_${'x'.repeat(500)}`]) {
      expect(await signUpAccess(code)).toBe('closed');
      await expect(registerAccount({ email: email('guess'), password: PASSWORD, invite: code }, ADDRESS)).rejects.toMatchObject({
        code: 'invitation_invalid',
      });
    }
    expect(await users()).toHaveLength(1);
  });

  it('two concurrent sign-ups with one code make one account; the invitation names the winner', async () => {
    const admin = await withAdmin();
    const invitation = await createInvitation(admin.id, { expiresInDays: 7 });
    const emails = [email('one'), email('two'), email('three')];
    const results = await Promise.allSettled(
      emails.map((address, i) => registerAccount({ email: address, password: PASSWORD, invite: invitation.code }, `192.0.2.${i}`)),
    );
    const made = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(made).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'invitation_invalid' });
    expect(await users()).toHaveLength(2); // the admin and the winner; the losers' accounts were rolled back
    expect((await invitationRow(invitation.id)).usedById).toBe(made[0]!.id);
  });

  it('a taken email does not use up the invitation', async () => {
    const admin = await withAdmin();
    const invitation = await createInvitation(admin.id, { expiresInDays: 7 });
    await expect(
      registerAccount({ email: (await findUserByEmail(admin.email))!.email, password: PASSWORD, invite: invitation.code }, ADDRESS),
    ).rejects.toMatchObject({ status: 409, code: 'email_taken' });
    expect((await invitationRow(invitation.id)).usedAt).toBeNull();
    expect(await signUpAccess(invitation.code)).toBe('invited');
  });

  it('at most LIMITS.invitation.maxOpen are open at once (limit, one past); used ones do not count', async () => {
    const admin = await withAdmin();
    const first = await createInvitation(admin.id, { expiresInDays: 1 });
    for (let i = 1; i < LIMITS.invitation.maxOpen; i++) await createInvitation(admin.id, { expiresInDays: 1 });
    await expect(createInvitation(admin.id, { expiresInDays: 1 })).rejects.toThrow(
      expect.objectContaining({ status: 409, code: 'invitation_limit' }),
    );
    await registerAccount({ email: email('frees'), password: PASSWORD, invite: first.code }, ADDRESS);
    expect((await createInvitation(admin.id, { expiresInDays: 1 })).status).toBe('open');
  });
});

describe('sign-up rate limit per client address', () => {
  const { perAddress, windowMs } = LIMITS.signUp;

  it(`admits ${perAddress} sign-ups per address per hour and refuses the next with 429 + Retry-After; other addresses are unaffected`, async () => {
    vi.stubEnv('ALLOW_SIGNUP', 'true');
    for (let i = 0; i < perAddress; i++) {
      now = T0 + i * 60_000;
      await registerAccount({ email: email(`ok${i}`), password: PASSWORD }, ADDRESS);
    }
    now = T0 + 30 * 60_000;
    const refusedEmail = email('one-too-many');
    const refused = await registerAccount({ email: refusedEmail, password: PASSWORD }, ADDRESS).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited', headers: { 'retry-after': String(30 * 60) } });
    expect(await findUserByEmail(refusedEmail)).toBeUndefined();
    // Another address still signs up.
    await registerAccount({ email: email('elsewhere'), password: PASSWORD }, '203.0.113.99');
    // When the oldest counted sign-up leaves the window, one more fits.
    now = T0 + windowMs;
    await registerAccount({ email: email('later'), password: PASSWORD }, ADDRESS);
  });

  it('attempts with a taken email count too (no free probing for accounts)', async () => {
    vi.stubEnv('ALLOW_SIGNUP', 'true');
    const taken = (await createUser({ email: email('taken'), password: PASSWORD })).email;
    for (let i = 0; i < perAddress; i++) {
      await expect(registerAccount({ email: taken, password: PASSWORD }, ADDRESS)).rejects.toMatchObject({ code: 'email_taken' });
    }
    await expect(registerAccount({ email: taken, password: PASSWORD }, ADDRESS)).rejects.toMatchObject({ status: 429 });
  });
});

describe('the sign-up form (POST /sign-up/submit)', () => {
  it('the first account signs up with the form, becomes admin and is signed in', async () => {
    const address = email('first');
    expect((await signUpForm({ email: address, password: PASSWORD, name: 'Ada' })).location).toBe('/agents');
    expect(await findUserByEmail(address)).toMatchObject({ role: 'admin', name: 'Ada' });
    expect(scope.jar.size).toBe(1);
  });

  it('after it, says sign-up is closed and how to get in, keeping what was typed', async () => {
    await createUser({ email: email('admin'), password: PASSWORD });
    const address = email('late');
    const answer = await signUpForm({ email: address, password: PASSWORD, name: 'Bo' });
    expect(answer.location).toBe('/sign-up');
    expect(answer.flash).toEqual({
      message: 'Sign-up is closed on this server. Ask its admin for an invitation link.',
      values: { email: address, name: 'Bo' },
    });
    expect(await findUserByEmail(address)).toBeUndefined();
    expect(scope.jar.size).toBe(0);
  });

  it('an invitation code in the hidden field admits the person and signs them in; a second use says the link is spent', async () => {
    const admin = await createUser({ email: email('admin'), password: PASSWORD });
    const invitation = await createInvitation(admin.id, { expiresInDays: 7 });
    const address = email('invited');
    expect((await signUpForm({ email: address, password: PASSWORD, name: '', invite: invitation.code })).location).toBe('/agents');
    expect(await findUserByEmail(address)).toMatchObject({ role: 'member' });

    scope.jar.clear();
    const second = email('second');
    const answer = await signUpForm({ email: second, password: PASSWORD, name: '', invite: invitation.code });
    expect(answer.location).toBe(`/sign-up?invite=${encodeURIComponent(invitation.code)}`);
    expect(answer.flash).toEqual({
      message: 'This invitation link is not valid any more (it was used, revoked or has expired). Ask the admin for a new one.',
      values: { email: second, name: '' },
    });
    expect(await findUserByEmail(second)).toBeUndefined();
    expect(scope.jar.size).toBe(0);
  });

  it('one past the per-address limit, the form says how long to wait', async () => {
    vi.stubEnv('ALLOW_SIGNUP', 'true');
    for (let i = 0; i < perAddressLimit(); i++) {
      scope.jar.clear();
      expect((await signUpForm({ email: email(`ok${i}`), password: PASSWORD, name: '' })).location).toBe('/agents');
    }
    const address = email('refused');
    expect((await signUpForm({ email: address, password: PASSWORD, name: '' })).flash).toEqual({
      message: 'Too many sign-ups from your address. Try again in 60 minutes.',
      values: { email: address, name: '' },
    });
    expect(await findUserByEmail(address)).toBeUndefined();
  });
});

const perAddressLimit = () => LIMITS.signUp.perAddress;
