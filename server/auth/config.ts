import 'server-only';
import NextAuth, { CredentialsSignin } from 'next-auth';
import Credentials from 'next-auth/providers/credentials';
import type { JWT } from 'next-auth/jwt';
import { LIMITS } from '@/lib/limits';
import { findUserByEmail, findUserById } from './users';
import { upgradePasswordHash } from './password-hash-upgrade';
import { hashPassword, needsRehash, verifyPassword } from './passwords';
import { clientAddress, rememberSignInAddress, signInRulesFor, takeLimit } from './rate-limit';
import { authSecret } from './secret';

declare module 'next-auth' {
  interface Session {
    user: { id: string; email: string; name: string };
  }
  interface User {
    sessionVersion?: number;
  }
}

class InvalidCredentials extends CredentialsSignin {
  code = 'invalid_credentials';
}

/** Thrown by authorize while the account or address is blocked; the doors check first, this closes the race. */
export class SignInRateLimited extends CredentialsSignin {
  code = 'rate_limited';
}

// A hash to compare against when the account doesn't exist, so both answers take as long.
let dummyHash: Promise<string> | undefined;

/** Check an email and password; null when they don't match an account. */
export async function checkCredentials(email: unknown, password: unknown) {
  if (typeof email !== 'string' || typeof password !== 'string' || !email || !password) return null;
  // No account has a longer password (the sign-up schema caps it), so don't spend a hash on one.
  if (password.length > 2 * LIMITS.user.password.maxChars || email.length > LIMITS.user.email.maxChars) return null;
  const user = await findUserByEmail(email);
  if (!user) {
    await verifyPassword(password, await (dummyHash ??= hashPassword('no such account')));
    return null;
  }
  if (!(await verifyPassword(password, user.passwordHash))) return null;
  // A disabled account can't sign in; it hears the same answer as a wrong password.
  if (user.disabledAt) return null;
  // An old bcrypt hash (or older scrypt parameters) is replaced now that the password is known.
  if (needsRehash(user.passwordHash)) await upgradePasswordHash(user.id, user.passwordHash, password);
  return user;
}

/**
 * The user a session token still speaks for: null when the user is gone, disabled, or signed out everywhere since
 * the token was issued (its session version is older). Used by the jwt callback and by requireUser's cookie path.
 */
export async function sessionUser(token: Pick<JWT, 'sub'> & { sv?: unknown }) {
  const user = token.sub ? await findUserById(token.sub) : undefined;
  if (!user || user.sessionVersion !== token.sv || user.disabledAt) return null;
  return user;
}

export const { handlers, auth, signIn, signOut } = NextAuth(() => ({
  trustHost: true,
  secret: authSecret(),
  session: { strategy: 'jwt' },
  pages: { signIn: '/sign-in' },
  logger: {
    // A wrong password is an everyday answer, not a server error: keep it out of the logs.
    error(error) {
      if (error instanceof CredentialsSignin) return;
      console.error(`[auth][error] ${error.name}: ${error.message}`, error.cause ?? error.stack ?? '');
    },
  },
  providers: [
    Credentials({
      credentials: { email: { type: 'email' }, password: { type: 'password' } },
      async authorize(credentials, request) {
        const email = typeof credentials?.email === 'string' ? credentials.email : null;
        // Counted before the hash (so concurrent guesses can't all pass the check) and taken back on success.
        const address = clientAddress(request.headers);
        const attempt = await takeLimit(await signInRulesFor(email, address));
        if (!attempt.ok) throw new SignInRateLimited();
        const user = await checkCredentials(credentials?.email, credentials?.password);
        if (!user) throw new InvalidCredentials();
        await attempt.release();
        await rememberSignInAddress(user.email, address);
        return { id: user.id, email: user.email, name: user.name, sessionVersion: user.sessionVersion };
      },
    }),
  ],
  callbacks: {
    async jwt({ token, user }) {
      if (user) {
        token.sub = user.id;
        token.sv = user.sessionVersion;
        return token;
      }
      // A session issued under an older version (signed out everywhere) or for a deleted user ends here.
      return (await sessionUser(token)) ? token : null;
    },
    session({ session, token }) {
      if (token.sub) session.user.id = token.sub;
      return session;
    },
  },
}));
