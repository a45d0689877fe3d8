import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeUser } from '../support/users';

// Signed out: the page's only request-bound read (the session) answers no one.
vi.mock('@/server/auth/require-user', () => ({ currentUser: async () => null }));
const { default: HomePage } = await import('@/app/page');

afterEach(() => vi.unstubAllEnvs());

/*
 * The home page offers account creation only while sign-up is open to anyone. What must not happen: a signed-out
 * visitor sent from the home page to a form that then says sign-up is closed.
 */
describe('the home page, signed out', () => {
  it('offers "Create account" while sign-up is open (ALLOW_SIGNUP=true), and not once it is closed', async () => {
    await makeUser('someone');
    vi.stubEnv('ALLOW_SIGNUP', 'true');
    const open = renderToStaticMarkup(await HomePage());
    expect(open).toContain('href="/sign-in"');
    expect(open).toContain('href="/sign-up"');

    vi.stubEnv('ALLOW_SIGNUP', '');
    const closed = renderToStaticMarkup(await HomePage());
    expect(closed).toContain('href="/sign-in"');
    expect(closed).not.toContain('href="/sign-up"');
    expect(closed).not.toContain('Create account');
  });
});
