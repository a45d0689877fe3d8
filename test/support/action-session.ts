import '../auth/support/next-auth';
import { afterEach, vi } from 'vitest';

/**
 * Server actions called outside Next: next/headers answers from `scope.headers` (a test signs in by putting a
 * Bearer token there — requireUser() reads those headers the same way for an action) and next-auth's cookie
 * session sees nobody (its cookie path is tested over next-auth's real HTTP handlers in test/auth/actions.test.ts).
 * Import this first; import the modules under test afterwards, dynamically, so they see the mocks.
 */
export const scope = { headers: new Headers() };
vi.mock('next/headers', () => ({ headers: async () => scope.headers, cookies: async () => ({ get: () => undefined }) }));
vi.mock('@/server/auth/config', async (importOriginal) => ({
  ...(await importOriginal<typeof import('@/server/auth/config')>()),
  auth: async () => null,
}));
afterEach(() => {
  scope.headers = new Headers();
});

/** Sign in for the actions called next: the user's Bearer token in the request's headers, with any `extra` ones. */
export function signIn(user: { auth: Record<string, string> }, extra: Record<string, string> = {}): void {
  scope.headers = new Headers({ ...user.auth, ...extra });
}
