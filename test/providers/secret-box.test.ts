// test: own process: sets ENSEMBLE_SECRET_KEY per test
import { afterEach, describe, expect, it } from 'vitest';
import { open, seal, sealedUnderCurrentKey, SecretBoxError } from '@/server/providers/secret-box';

const OLD = 'o'.repeat(40);
const NEW = 'n'.repeat(40);
const KEY = 'sk-live-0123456789abcdefWXYZ';

afterEach(() => {
  delete process.env.ENSEMBLE_SECRET_KEY;
  delete process.env.ENSEMBLE_SECRET_KEY_PREVIOUS;
});

describe('secret box (AES-256-GCM under a key derived from the server secret)', () => {
  it('round-trips ASCII, CJK and emoji, and the stored text holds no part of the key', () => {
    process.env.ENSEMBLE_SECRET_KEY = NEW;
    for (const plain of [KEY, '鍵-秘密-キー', 'key-🔑-🗝️']) {
      const sealed = seal(plain, 'provider-1');
      expect(open(sealed, 'provider-1')).toBe(plain);
      expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
      expect(sealed).not.toContain(plain);
      expect(sealed).not.toContain(plain.slice(-4));
    }
  });

  it('seals the same key differently each time (a fresh IV)', () => {
    process.env.ENSEMBLE_SECRET_KEY = NEW;
    expect(seal(KEY, 'p')).not.toBe(seal(KEY, 'p'));
  });

  it("won't open a value copied onto another provider, or altered", () => {
    // What must not happen: a sealed key moved to another provider's row (or edited) decrypting to anything.
    process.env.ENSEMBLE_SECRET_KEY = NEW;
    const sealed = seal(KEY, 'provider-1');
    expect(() => open(sealed, 'provider-2')).toThrow(SecretBoxError);
    const parts = sealed.split('.');
    const body = Buffer.from(parts[4]!, 'base64url');
    body[0] = body[0]! ^ 1;
    parts[4] = body.toString('base64url');
    expect(() => open(parts.join('.'), 'provider-1')).toThrow(/could not be decrypted/);
    expect(() => open('v2.x.y.z.w', 'provider-1')).toThrow(/not in a format/);
  });

  it('rotation: after the secret changes, the old value opens only with ENSEMBLE_SECRET_KEY_PREVIOUS set', () => {
    process.env.ENSEMBLE_SECRET_KEY = OLD;
    const sealed = seal(KEY, 'p');
    expect(sealedUnderCurrentKey(sealed)).toBe(true);
    process.env.ENSEMBLE_SECRET_KEY = NEW;
    expect(sealedUnderCurrentKey(sealed)).toBe(false);
    expect(() => open(sealed, 'p')).toThrow(/secret this server does not have/);
    process.env.ENSEMBLE_SECRET_KEY_PREVIOUS = OLD;
    expect(open(sealed, 'p')).toBe(KEY);
    const resealed = seal(open(sealed, 'p'), 'p');
    expect(sealedUnderCurrentKey(resealed)).toBe(true);
    delete process.env.ENSEMBLE_SECRET_KEY_PREVIOUS;
    expect(open(resealed, 'p')).toBe(KEY);
  });
});
