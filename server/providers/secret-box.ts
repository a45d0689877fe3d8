import 'server-only';
import crypto from 'node:crypto';
import { authSecret } from '@/server/auth/secret';
import { env } from '@/server/env';

/**
 * Managed providers' API keys at rest (ADR 043): AES-256-GCM under a key derived with HKDF-SHA256 from the server
 * secret (ENSEMBLE_SECRET_KEY, else the session secret). A sealed value is `v1.<keyId>.<iv>.<tag>.<ciphertext>`
 * (base64url): keyId names the secret it was sealed under, so after a rotation (ENSEMBLE_SECRET_KEY_PREVIOUS holds
 * the old one) the right key is chosen, and a value no configured secret opened is reported as such instead of as a
 * bad key. The provider's id is the additional data: a sealed key copied onto another provider's row won't open.
 */

const VERSION = 'v1';
const SALT = Buffer.from('ensemble/provider-keys');
const INFO = Buffer.from('aes-256-gcm v1');

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

type Key = { id: string; key: Buffer };

function derive(secret: string): Key {
  const key = Buffer.from(crypto.hkdfSync('sha256', secret, SALT, INFO, 32));
  // Not secret: a short fingerprint of the derived key, to pick the key and to say which secret is missing.
  const id = crypto.createHash('sha256').update(key).digest('base64url').slice(0, 8);
  return { id, key };
}

/** The key new values are sealed under. */
export function currentKey(): Key {
  return derive(env.secretKey ?? authSecret());
}

/** Every key a sealed value may be under: the current one, then the previous secret's (during a rotation). */
function openingKeys(): Key[] {
  const keys = [currentKey()];
  const previous = env.previousSecretKey;
  if (previous) keys.push(derive(previous));
  return keys;
}

export function seal(plain: string, aad: string): string {
  const { id, key } = currentKey();
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [VERSION, id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

/** Whether a sealed value is under the current key (the rotation script re-seals the others). */
export function sealedUnderCurrentKey(sealed: string): boolean {
  return sealed.split('.')[1] === currentKey().id;
}

export function open(sealed: string, aad: string): string {
  const parts = sealed.split('.');
  if (parts.length !== 5 || parts[0] !== VERSION) throw new SecretBoxError('The stored key is not in a format this version reads.');
  const [, keyId, iv, tag, body] = parts as [string, string, string, string, string];
  const key = openingKeys().find((k) => k.id === keyId);
  if (!key) {
    throw new SecretBoxError(
      'The stored key was encrypted under a secret this server does not have (ENSEMBLE_SECRET_KEY changed?): set ENSEMBLE_SECRET_KEY_PREVIOUS to the old secret, or enter the key again.',
    );
  }
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', key.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretBoxError('The stored key could not be decrypted (it was altered, or belongs to another provider): enter the key again.');
  }
}

/** What a person may see of a key once it is saved: its last four characters. */
export function lastFour(key: string): string {
  return [...key].slice(-4).join('');
}
