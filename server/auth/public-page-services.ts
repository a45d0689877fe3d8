import 'server-only';
import { providePublicPageServices } from '@/lib/public-pages/services';
import { signUpAccess } from './registration';
import { currentUser } from './require-user';
import { hasAnyUser, signUpEnabled } from './users';

/** Answer the account pages' questions (lib/public-pages/services.ts) with this server's code. Called at start-up. */
export function installPublicPageServices(): void {
  providePublicPageServices({
    // A page render is a GET: requireUser's cookie path reads the session without a write check.
    signedIn: async (headers) => (await currentUser(new Request('http://page.invalid/', { headers }))) !== null,
    signUpEnabled: () => signUpEnabled(),
    signUpAccess: (invite) => signUpAccess(invite),
    hasAnyUser: () => hasAnyUser(),
  });
}
