import 'server-only';
import { LIMITS } from '@/lib/limits';
import { AUTH_MESSAGES } from '@/lib/schemas/auth';
import { writeTx } from '@/server/db';
import { AppError } from '@/server/http/errors';
import { consumeInvitation, invitationInvalid, invitationIsOpen } from './invitations';
import { hashPassword } from './passwords';
import { takeLimit, type LimitRule } from './rate-limit';
import { hasAnyUser, insertUser, signUpAllowedByEnv, type CreatedUser } from './users';

/**
 * Who may create their own account (the sign-up form), decided in one write transaction with the new row:
 * - the instance's first account, which becomes its admin (two concurrent first sign-ups: the second one's
 *   transaction already sees the first account, so exactly one is admin);
 * - anyone with an open invitation code (used up in that same transaction: one code, one account);
 * - anyone, when ALLOW_SIGNUP=true.
 * Otherwise 403 signup_closed. Accounts made by an admin, the user CLI or the demo seed don't pass through here.
 * Attempts that get as far as creating an account are limited per client address (LIMITS.signUp).
 */

export type SignUp = { email: string; password: string; name?: string; invite?: string | null };

const signUpClosed = () => new AppError(403, 'signup_closed', AUTH_MESSAGES.signUpDisabled);

export const tooManySignUpsMessage = (seconds: number) => {
  const minutes = Math.ceil(seconds / 60);
  return `Too many sign-ups from your address. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
};

const tooManySignUps = (retryAfterSeconds: number) =>
  new AppError(429, 'rate_limited', tooManySignUpsMessage(retryAfterSeconds), undefined, {
    'retry-after': String(retryAfterSeconds),
  });

export const signUpRule = (address: string): LimitRule => ({
  key: `signup:address:${address}`,
  max: LIMITS.signUp.perAddress,
  windowMs: LIMITS.signUp.windowMs,
});

/** Who may sign up right now: 'open' (anyone), 'invited' (this code admits one person) or 'closed'. */
export async function signUpAccess(invite?: string | null): Promise<'open' | 'invited' | 'closed'> {
  if (invite) return (await invitationIsOpen(invite)) ? 'invited' : 'closed';
  return signUpAllowedByEnv() || !(await hasAnyUser()) ? 'open' : 'closed';
}

/** Create an account through the sign-up form's rules (see the module comment); `address` is the client's. */
export async function registerAccount(input: SignUp, address: string): Promise<CreatedUser> {
  const invite = input.invite || null;
  // Cheap refusals first: no hash, and nothing counted, for a sign-up that can't succeed.
  if ((await signUpAccess(invite)) === 'closed') throw invite ? invitationInvalid() : signUpClosed();
  const limit = await takeLimit([signUpRule(address)]);
  if (!limit.ok) throw tooManySignUps(limit.retryAfterSeconds);

  const passwordHash = await hashPassword(input.password);
  // The decision that counts: in the transaction that writes the account (database work only in between).
  return writeTx(async (tx) => {
    const first = !(await hasAnyUser(tx));
    if (!first && !invite && !signUpAllowedByEnv()) throw signUpClosed();
    const user = await insertUser(tx, { email: input.email, name: input.name, passwordHash, role: first ? 'admin' : 'member' });
    // After the insert because the invitation records who used it; a refused code rolls the account back.
    if (invite && !first) await consumeInvitation(tx, invite, user.id);
    return user;
  });
}
