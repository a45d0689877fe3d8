import 'server-only';
import NextAuth, { CredentialsSignin } from 'next-auth';
import Credentials from 'next-auth/providers/credentials';
import { findUserByEmail, findUserById } from './users';
import { verifyPassword } from './passwords';
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

/** Check an email and password; null when they don't match an account. */
export async function checkCredentials(email: unknown, password: unknown) {
  if (typeof email !== 'string' || typeof password !== 'string' || !email || !password) return null;
  const user = findUserByEmail(email);
  if (!user) return null;
  if (!(await verifyPassword(password, user.passwordHash))) return null;
  return user;
}

export const { handlers, auth, signIn, signOut } = NextAuth(() => ({
  trustHost: true,
  secret: authSecret(),
  session: { strategy: 'jwt' },
  pages: { signIn: '/sign-in' },
  providers: [
    Credentials({
      credentials: { email: { type: 'email' }, password: { type: 'password' } },
      async authorize(credentials) {
        const user = await checkCredentials(credentials?.email, credentials?.password);
        if (!user) throw new InvalidCredentials();
        return { id: user.id, email: user.email, name: user.name, sessionVersion: user.sessionVersion };
      },
    }),
  ],
  callbacks: {
    jwt({ token, user }) {
      if (user) {
        token.sub = user.id;
        token.sv = user.sessionVersion;
        return token;
      }
      // A session issued under an older version (signed out everywhere) or for a deleted user ends here.
      const current = token.sub ? findUserById(token.sub) : undefined;
      if (!current || current.sessionVersion !== token.sv) return null;
      return token;
    },
    session({ session, token }) {
      if (token.sub) session.user.id = token.sub;
      return session;
    },
  },
}));
