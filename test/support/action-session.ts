import '../auth/support/next-auth';
import { afterEach, vi } from 'vitest';

/**
 * Server actions called outside Next: next/headers answers from `scope.headers` (a test signs in by putting a
 * Bearer token there — requireUser() reads those headers the same way for an action) and next-auth's cookie
 * session sees nobody (its cookie path is tested over next-auth's real HTTP handlers in test/auth/actions.test.ts).
 * Import this first; import the modules under test afterwards, dynamically, so they see the mocks.
 *
 * The files that use this share a worker (support/isolated-suites.mts, 'shared-actions'), where a mock registered by
 * an earlier file can still answer: so the mock reads the headers from one holder per process, which each file's
 * `scope` is, rather than from a closure over the first file's.
 */
const holder = Symbol.for('ensemble.test.action-session');
type Scope = { headers: Headers };
export const scope: Scope = ((globalThis as Record<symbol, Scope>)[holder] ??= { headers: new Headers() });
scope.headers = new Headers();
vi.mock('next/headers', () => {
  const current = (globalThis as Record<symbol, Scope>)[Symbol.for('ensemble.test.action-session')]!;
  return { headers: async () => current.headers, cookies: async () => ({ get: () => undefined }) };
});
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
