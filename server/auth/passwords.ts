import 'server-only';
import crypto from 'node:crypto';
import bcrypt from 'bcryptjs';
import { env } from '@/server/env';

/**
 * Password hashes. New ones are scrypt, computed by node's async crypto.scrypt on libuv's thread pool, so a
 * sign-in never blocks the event loop (bcryptjs is pure JavaScript on the main thread). Stored as
 * `scrypt$N$r$p$salt$hash` (salt and hash base64url), so parameters can be raised later: a hash made with other
 * parameters (or an old bcrypt one) still verifies and needsRehash() says to replace it at the next sign-in.
 * See docs/decisions/008-password-hashing-and-sign-in-limiting.md.
 */

/**
 * Cost for new hashes, in one place. OWASP's scrypt equivalent of N=2^17,p=1: N=2^15, r=8, p=3 (32 MiB per hash,
 * ~100 ms on one core). SCRYPT_LOG_N lowers N for tests and e2e (never set it in production).
 */
export const SCRYPT_PARAMS = {
  N: 2 ** env.scryptLogN,
  r: 8,
  p: 3,
  keyLength: 32,
  saltLength: 16,
} as const;

type ScryptParams = { N: number; r: number; p: number };

const PREFIX = 'scrypt';
// Refuse stored parameters that would cost more than this: a corrupted row must not become a memory bomb.
const MAX = { N: 2 ** 20, r: 32, p: 16 };

/** Memory scrypt needs is about 128·N·r bytes; give it headroom (node's default cap is 32 MiB). */
const maxmem = ({ N, r }: ScryptParams) => 256 * N * r + 1024 * 1024;

function scrypt(password: string, salt: Buffer, keyLength: number, params: ScryptParams): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    crypto.scrypt(password.normalize('NFC'), salt, keyLength, { ...params, maxmem: maxmem(params) }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const { N, r, p, keyLength, saltLength } = SCRYPT_PARAMS;
  const salt = crypto.randomBytes(saltLength);
  const key = await scrypt(password, salt, keyLength, { N, r, p });
  return [PREFIX, N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

type ParsedScrypt = ScryptParams & { salt: Buffer; key: Buffer };

function parseScrypt(stored: string): ParsedScrypt | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== PREFIX) return null;
  const [N, r, p] = parts.slice(1, 4).map((n) => (/^\d{1,8}$/.test(n!) ? Number(n) : NaN)) as [number, number, number];
  const powerOfTwo = N > 1 && (N & (N - 1)) === 0;
  if (!powerOfTwo || N > MAX.N || !(r >= 1 && r <= MAX.r) || !(p >= 1 && p <= MAX.p)) return null;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const key = Buffer.from(parts[5]!, 'base64url');
  if (salt.length < 8 || key.length < 16) return null;
  return { N, r, p, salt, key };
}

/**
 * The old format: bcrypt of the base64 SHA-256 of the password (bcrypt reads only 72 bytes, the pre-hash keeps
 * every character significant). Kept only to verify hashes made before scrypt; they are replaced on sign-in.
 */
const bcryptPrehash = (password: string) => crypto.createHash('sha256').update(password, 'utf8').digest('base64');
const isBcrypt = (stored: string) => /^\$2[aby]\$\d{2}\$/.test(stored);

/** Does the password match the stored hash (either format)? Unknown formats never match. Constant-time compare. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseScrypt(stored);
  if (parsed) {
    const key = await scrypt(password, parsed.salt, parsed.key.length, parsed);
    return crypto.timingSafeEqual(key, parsed.key);
  }
  if (isBcrypt(stored)) return bcrypt.compare(bcryptPrehash(password), stored);
  return false;
}

/** True when a stored hash is not scrypt with today's parameters: replace it once the password is known to match. */
export function needsRehash(stored: string): boolean {
  const parsed = parseScrypt(stored);
  if (!parsed) return true;
  const { N, r, p, keyLength } = SCRYPT_PARAMS;
  return parsed.N !== N || parsed.r !== r || parsed.p !== p || parsed.key.length !== keyLength;
}
