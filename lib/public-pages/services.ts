/**
 * What the account pages (pages/: the home page, sign-in, sign-up; ADR 062) ask the server. They are Pages Router
 * pages that ship no JavaScript, and a Pages Router module may not import a `server-only` module, so they reach the
 * server's code through this process-wide registry, which start-up fills (server/auth/public-page-services.ts) before
 * Next serves a request. Only the few questions below cross; every write goes through an App Router route handler.
 */
export type SignUpAccess = 'open' | 'invited' | 'closed';

export type PublicPageServices = {
  /** Whether these request headers carry a valid session (an active account, a current session version). */
  signedIn(headers: Headers): Promise<boolean>;
  /** Whether the server takes new accounts without an invitation (the first account, or ALLOW_SIGNUP=true). */
  signUpEnabled(): Promise<boolean>;
  /** Whether this visitor may create an account: with no code, as signUpEnabled; with one, whether it is still open. */
  signUpAccess(invite: string | null): Promise<SignUpAccess>;
  hasAnyUser(): Promise<boolean>;
};

const KEY = Symbol.for('ensemble.publicPageServices');
const g = globalThis as unknown as { [KEY]?: PublicPageServices };

export function providePublicPageServices(services: PublicPageServices): void {
  g[KEY] = services;
}

export function publicPageServices(): PublicPageServices {
  const services = g[KEY];
  if (!services) throw new Error('The account pages ran before server start-up registered their services (instrumentation.ts).');
  return services;
}
