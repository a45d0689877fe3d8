import 'server-only';
import { currentUser } from './require-user';

/**
 * For a response that outlives its request's check (an event stream): whether the credential that request carried
 * still authenticates `accountId` — its API token neither revoked nor expired, its session cookie's version still
 * the account's (sign out everywhere and a password change bump it), the account not disabled. It authenticates
 * the same headers again, the way requireUser did when the stream opened.
 */
export function stillSignedIn(req: Request, accountId: string): () => Promise<boolean> {
  return async () => (await currentUser(req))?.id === accountId;
}
