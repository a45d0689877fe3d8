import './next-auth';

/**
 * Next's request-scoped pieces, stood in for where auth code runs outside Next (route handlers and server actions
 * called directly):
 * - next/headers: the request's headers and a cookie jar (`scope`);
 * - next-auth's signIn/signOut/auth helpers: the same steps over next-auth's real HTTP handlers (csrf + credentials
 *   callback, session endpoint), so authorize, the rate limiter and the jwt callback are real.
 * A test file mocks the two modules with these factories:
 *   vi.mock('next/headers', async () => (await import('./support/request-scope')).nextHeadersMock());
 *   vi.mock('@/server/auth/config', async (real) => (await import('./support/request-scope')).authConfigMock(await real()));
 */
export const scope = { headers: new Headers(), jar: new Map<string, string>() };

export const nextHeadersMock = () => ({
  headers: async () => scope.headers,
  cookies: async () => ({
    get: (name: string) => (scope.jar.has(name) ? { name, value: scope.jar.get(name) } : undefined),
    set: (name: string, value: string) => void scope.jar.set(name, value),
    delete: (name: string) => void scope.jar.delete(name),
  }),
});

type AuthConfig = typeof import('@/server/auth/config');

export async function authConfigMock(real: AuthConfig): Promise<AuthConfig> {
  const { CredentialsSignin } = await import('next-auth');
  const { redirect } = await import('next/navigation');
  const http = await import('./http-auth');
  const jarCookie = () => [...scope.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  return {
    ...real,
    async signIn(_provider: string, options: { email: string; password: string; redirectTo: string }) {
      const res = await http.postCredentials({
        email: options.email,
        password: options.password,
        callbackUrl: options.redirectTo,
        address: scope.headers.get('x-forwarded-for') ?? undefined,
      });
      const location = new URL(res.headers.get('location') ?? 'http://localhost/');
      if (location.searchParams.get('error') === 'CredentialsSignin') {
        // What next-auth's signIn throws with redirect: false: the error authorize threw.
        const err = new CredentialsSignin();
        err.code = location.searchParams.get('code') ?? 'credentials';
        throw err;
      }
      const [name, value] = http.sessionCookieFrom(res)!.split(/=(.*)/s);
      scope.jar.set(name!, value!);
      return location.toString();
    },
    async signOut(options: { redirectTo: string }) {
      scope.jar.clear();
      redirect(options.redirectTo);
    },
    async auth() {
      return scope.jar.size ? ((await http.sessionFor(jarCookie())) as Awaited<ReturnType<AuthConfig['auth']>>) : null;
    },
  } as AuthConfig;
}

/** Reset between tests: a fresh jar, and the headers next-auth's signIn reads for the client's address. */
export function resetScope(headers: HeadersInit = {}): void {
  scope.headers = new Headers(headers);
  scope.jar.clear();
}
