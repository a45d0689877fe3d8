import './support/next-auth';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeUser } from '../support/users';

/**
 * The account pages (ADR 062): Pages Router pages whose getServerSideProps ask the server through the registry that
 * start-up fills. Called here as Next calls them, with the request's cookies and query.
 */
const { installPublicPageServices } = await import('@/server/auth/public-page-services');
const { encodeAuthFlash, AUTH_FLASH_COOKIE } = await import('@/lib/auth/form-flash');
const { authSecret } = await import('@/server/auth/secret');
const { encode } = await import('next-auth/jwt');
const home = await import('@/pages/index');
const signIn = await import('@/pages/sign-in');
const signUp = await import('@/pages/sign-up');
const { signOutEverywhere } = await import('@/server/auth/sign-out-everywhere');
const { createInvitation } = await import('@/server/auth/invitations');
const { findUserById } = await import('@/server/auth/users');

beforeAll(() => installPublicPageServices());
afterEach(() => vi.unstubAllEnvs());

type Page = { getServerSideProps: (ctx: never) => Promise<unknown> };

/** Run a page's getServerSideProps; returns its answer and the response headers it set. */
async function visit(page: Page, { cookies = {}, query = {} }: { cookies?: Record<string, string>; query?: Record<string, string> } = {}) {
  const headers = new Map<string, unknown>();
  const cookie = Object.entries(cookies).map(([k, v]) => `${k}=${v}`).join('; ');
  const req = { headers: { cookie }, cookies } as unknown as IncomingMessage;
  const res = {
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), value),
  } as unknown as ServerResponse;
  const answer = (await page.getServerSideProps({ req, res, query } as never)) as { props?: Record<string, unknown>; redirect?: { destination: string } };
  return { answer, headers };
}

/** The <input> tags of rendered HTML. */
const inputs = (html: string) => html.match(/<input\b[^>]*>/g) ?? [];

/** A session cookie as next-auth issues it, for the user at their current session version. */
async function sessionCookieFor(user: { id: string }) {
  const { sessionVersion } = (await findUserById(user.id))!;
  const value = await encode({ token: { sub: user.id, sv: sessionVersion }, secret: authSecret(), salt: 'authjs.session-token' });
  return { 'authjs.session-token': value };
}

describe('the home page', () => {
  it('offers "Create account" while sign-up is open (ALLOW_SIGNUP=true), and not once it is closed', async () => {
    await makeUser('someone');
    vi.stubEnv('ALLOW_SIGNUP', 'true');
    const open = await visit(home);
    expect(open.answer.props).toEqual({ signUp: true });
    const openHtml = renderToStaticMarkup(home.default(open.answer.props as { signUp: boolean }));
    expect(openHtml).toContain('href="/sign-in"');
    expect(openHtml).toContain('href="/sign-up"');
    expect(open.headers.get('cache-control')).toBe('private, no-store');

    vi.stubEnv('ALLOW_SIGNUP', '');
    const closed = await visit(home);
    // What must not happen: a signed-out visitor sent from the home page to a form that says sign-up is closed.
    expect(renderToStaticMarkup(home.default(closed.answer.props as { signUp: boolean }))).not.toContain('href="/sign-up"');
  });

  it('sends a signed-in visitor to /agents, but not one whose session ended everywhere', async () => {
    const user = await makeUser('home');
    const cookies = await sessionCookieFor(user);
    expect((await visit(home, { cookies })).answer.redirect?.destination).toBe('/agents');
    await signOutEverywhere(user.id);
    expect((await visit(home, { cookies })).answer.redirect).toBeUndefined();
  });
});

describe('the sign-in page', () => {
  it('shows a refusal once: it reads the flash cookie and clears it in the same answer', async () => {
    const flash = encodeAuthFlash('sign-in', { message: 'Invalid email or password', values: { email: 'ann@example.test' } });
    const { answer, headers } = await visit(signIn, { cookies: { [AUTH_FLASH_COOKIE]: flash } });
    expect(answer.props).toMatchObject({ state: { message: 'Invalid email or password', values: { email: 'ann@example.test' } } });
    expect(headers.get('set-cookie')).toEqual([`${AUTH_FLASH_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`]);
    const html = renderToStaticMarkup(signIn.default(answer.props as never));
    expect(html).toContain('value="ann@example.test"');
    const focused = inputs(html).filter((tag) => /\bautofocus=""/.test(tag));
    expect(focused).toHaveLength(1);
    expect(focused[0]).toContain('type="password"');
  });

  it('ignores (and clears) a flash meant for the other form, or one that is malformed', async () => {
    for (const raw of [encodeAuthFlash('sign-up', { message: 'for sign-up' }), 'not-base64-json', '']) {
      const { answer, headers } = await visit(signIn, { cookies: { [AUTH_FLASH_COOKIE]: raw } });
      expect(answer.props).toMatchObject({ state: {} });
      expect(headers.get('set-cookie')).toHaveLength(1);
    }
  });

  it('keeps a same-origin callback path only, and sends a signed-in visitor there', async () => {
    expect((await visit(signIn, { query: { callbackUrl: '/teams/x?tab=1' } })).answer.props).toMatchObject({ callbackPath: '/teams/x?tab=1' });
    for (const evil of ['https://evil.example/', '//evil.example/x', '/\\evil.example']) {
      expect((await visit(signIn, { query: { callbackUrl: evil } })).answer.props, evil).toMatchObject({ callbackPath: null });
    }
    const user = await makeUser('sign-in-page');
    const cookies = await sessionCookieFor(user);
    expect((await visit(signIn, { cookies, query: { callbackUrl: '/settings' } })).answer.redirect?.destination).toBe('/settings');
    expect((await visit(signIn, { cookies, query: { callbackUrl: 'https://evil.example/' } })).answer.redirect?.destination).toBe('/agents');
  });

  it("words next-auth's own HTTP refusals", async () => {
    expect((await visit(signIn, { query: { error: 'CredentialsSignin', code: 'credentials' } })).answer.props).toMatchObject({
      state: { message: 'Invalid email or password' },
    });
    expect((await visit(signIn, { query: { error: 'CredentialsSignin', code: 'rate_limited' } })).answer.props).toMatchObject({
      state: { message: 'Too many failed sign-ins. Try again in a minute.' },
    });
  });
});

describe('the sign-up page', () => {
  it('says sign-up is closed, or offers the form through an open invitation, and says when a link is spent', async () => {
    const admin = await makeUser('admin');
    vi.stubEnv('ALLOW_SIGNUP', '');
    expect((await visit(signUp)).answer.props).toMatchObject({ closed: true, message: expect.stringMatching(/closed|invitation/i) });

    const invitation = await createInvitation(admin.id, { expiresInDays: 1 });
    const invited = await visit(signUp, { query: { invite: invitation.code } });
    expect(invited.answer.props).toMatchObject({ closed: false, invite: invitation.code, notice: expect.stringContaining('You were invited') });
    expect(renderToStaticMarkup(signUp.default(invited.answer.props as never))).toContain(`name="invite" value="${invitation.code}"`);

    expect((await visit(signUp, { query: { invite: 'inv_nope' } })).answer.props).toMatchObject({ closed: true });
    vi.stubEnv('ALLOW_SIGNUP', 'true');
    expect((await visit(signUp, { query: { invite: 'inv_nope' } })).answer.props).toMatchObject({
      closed: false,
      invite: null,
      notice: expect.stringContaining('not valid any more'),
    });
  });

  it('keeps what a refused attempt typed (CJK and emoji) and puts the cursor in the refused field', async () => {
    vi.stubEnv('ALLOW_SIGNUP', 'true');
    const name = '名🎻'.repeat(41);
    const flash = encodeAuthFlash('sign-up', { fields: { name: 'At most 80 characters' }, values: { email: 'zoë@example.test', name } });
    const { answer } = await visit(signUp, { cookies: { [AUTH_FLASH_COOKIE]: flash } });
    const html = renderToStaticMarkup(signUp.default(answer.props as never));
    expect(html).toContain(`value="${name}"`);
    const focused = inputs(html).filter((tag) => /\bautofocus=""/.test(tag));
    expect(focused).toHaveLength(1);
    expect(focused[0]).toContain('name="name"');
    expect(html).toContain('aria-invalid="true"');
  });
});
