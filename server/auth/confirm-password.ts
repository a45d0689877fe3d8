import 'server-only';
import { AppError, conflict, unauthorized } from '@/server/http/errors';
import { needsRehash, verifyPassword } from './passwords';
import { upgradePasswordHash } from './password-hash-upgrade';
import { rememberSignInAddress, signInRulesFor, takeLimit, tooManySignInsMessage } from './rate-limit';
import { findUserById } from './users';

/**
 * Check a signed-in person's password again before something a stolen session alone must not do (change the
 * password, create an API token). A wrong password counts exactly like a failed sign-in for this account and
 * address, so a borrowed session can't be used to guess it; while those limits are full the answer is 429.
 *
 * Wrong password: 403 `wrong_password` with the field named (the input is well-formed, so not 422; and not 401,
 * which would tell the client its session or token is gone). Returns the user row as it is now stored.
 *
 * With `sessionVersion` (the one the caller was authenticated under, server/auth/require-user.ts): when every
 * session has ended since (a password change or sign out everywhere committed meanwhile), 409 `password_changed`
 * before anything is checked or counted; the password the caller typed was right until then, and is checked
 * against no other hash.
 */
export async function confirmPassword(userId: string, password: string, address: string, field: string, sessionVersion?: number) {
  const user = await findUserById(userId);
  if (!user) throw unauthorized();
  if (sessionVersion !== undefined && user.sessionVersion !== sessionVersion) throw sessionsEnded();
  const attempt = await takeLimit(await signInRulesFor(user.email, address));
  if (!attempt.ok) {
    throw new AppError(429, 'rate_limited', tooManySignInsMessage(attempt.retryAfterSeconds), undefined, {
      'retry-after': String(attempt.retryAfterSeconds),
    });
  }
  if (!(await verifyPassword(password, user.passwordHash))) {
    throw new AppError(403, 'wrong_password', 'The password is not correct', { [field]: 'Wrong password' });
  }
  await attempt.release();
  await rememberSignInAddress(user.email, address);
  if (!needsRehash(user.passwordHash)) return user;
  const upgraded = await upgradePasswordHash(user.id, user.passwordHash, password);
  return upgraded ? { ...user, passwordHash: upgraded } : user;
}

/** The account's sessions ended while this request was under way: nothing was changed. */
export const sessionsEnded = () =>
  conflict('password_changed', 'The password was changed, or every session ended, at the same time: nothing was saved; sign in again');
