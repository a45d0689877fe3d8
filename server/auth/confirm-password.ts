import 'server-only';
import { AppError, unauthorized } from '@/server/http/errors';
import { needsRehash, verifyPassword } from './passwords';
import { upgradePasswordHash } from './password-hash-upgrade';
import { signInRules, takeLimit, tooManySignInsMessage } from './rate-limit';
import { findUserById } from './users';

/**
 * Check a signed-in person's password again before something a stolen session alone must not do (change the
 * password, create an API token). A wrong password counts exactly like a failed sign-in for this account and
 * address, so a borrowed session can't be used to guess it; while those limits are full the answer is 429.
 *
 * Wrong password: 403 `wrong_password` with the field named (the input is well-formed, so not 422; and not 401,
 * which would tell the client its session or token is gone). Returns the user row as it is now stored.
 */
export async function confirmPassword(userId: string, password: string, address: string, field: string) {
  const user = await findUserById(userId);
  if (!user) throw unauthorized();
  const attempt = await takeLimit(signInRules(user.email, address));
  if (!attempt.ok) {
    throw new AppError(429, 'rate_limited', tooManySignInsMessage(attempt.retryAfterSeconds), undefined, {
      'retry-after': String(attempt.retryAfterSeconds),
    });
  }
  if (!(await verifyPassword(password, user.passwordHash))) {
    throw new AppError(403, 'wrong_password', 'The password is not correct', { [field]: 'Wrong password' });
  }
  await attempt.release();
  if (!needsRehash(user.passwordHash)) return user;
  const upgraded = await upgradePasswordHash(user.id, user.passwordHash, password);
  return upgraded ? { ...user, passwordHash: upgraded } : user;
}
