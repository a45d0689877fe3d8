import { describe, expect, it } from 'vitest';
import { AUTH_FLASH_MAX_BYTES, decodeAuthFlash, encodeAuthFlash } from '@/lib/auth/form-flash';
import { LIMITS } from '@/lib/limits';
import type { AuthFormState } from '@/lib/types/auth-forms';

// lib/auth/form-flash.ts: what a refused account form post carries back to its page in a cookie. The cookie comes
// back from the browser, so its value is untrusted: decoding never throws and yields only bounded text.

const NAME_MAX = LIMITS.user.name.maxChars;
const EMAIL_MAX = LIMITS.user.email.maxChars;
const roundTrip = (state: AuthFormState, form: 'sign-in' | 'sign-up' = 'sign-up') => decodeAuthFlash(encodeAuthFlash(form, state), form);
const raw = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

describe('the auth flash cookie', () => {
  it.each([
    ['ASCII', 'a'],
    ['CJK', '名'],
    ['emoji', '😀'],
  ])('carries a %s name at the limit and one past it whole', (_, char) => {
    for (const name of [char.repeat(NAME_MAX), char.repeat(NAME_MAX + 1)]) {
      const state = { fields: { name: `Must be at most ${NAME_MAX} characters` }, values: { email: 'ann@example.test', name } };
      const value = encodeAuthFlash('sign-up', state);
      expect(value).toMatch(/^[A-Za-z0-9_-]+$/); // a cookie value as it stands, no quoting or escaping
      expect(decodeAuthFlash(value, 'sign-up')).toEqual(state);
    }
  });

  it('keeps a typed value up to twice its limit, and cuts it there by characters (never inside an emoji)', () => {
    const name = '😀'.repeat(2 * NAME_MAX + 5);
    expect(roundTrip({ values: { name } })?.values?.name).toBe('😀'.repeat(2 * NAME_MAX));
    const email = 'é'.repeat(2 * EMAIL_MAX + 1);
    expect(roundTrip({ values: { email } })?.values?.email).toBe('é'.repeat(2 * EMAIL_MAX));
  });

  it('drops the typed values, keeping the errors, when they would make the cookie too large', () => {
    // Control characters take 6 bytes each in JSON: a value within its character bound can still be large.
    const state = { message: 'Invalid email or password', values: { email: '\u0001'.repeat(2 * EMAIL_MAX), name: '\u0002'.repeat(2 * NAME_MAX) } };
    const value = encodeAuthFlash('sign-up', state);
    expect(value.length).toBeLessThanOrEqual(AUTH_FLASH_MAX_BYTES);
    expect(decodeAuthFlash(value, 'sign-up')).toEqual({ message: 'Invalid email or password' });
  });

  it('never carries a password, even when a caller passes one along', () => {
    const state = { message: 'x', values: { email: 'a@example.test', password: 'hunter2 secret' } } as AuthFormState;
    const value = encodeAuthFlash('sign-in', state);
    expect(Buffer.from(value, 'base64url').toString('utf8')).not.toContain('hunter2');
    expect(decodeAuthFlash(value, 'sign-in')).toEqual({ message: 'x', values: { email: 'a@example.test' } });
  });

  it("is null for the other form's value, a missing one, malformed ones and an oversized one, and never throws", () => {
    const signIn = encodeAuthFlash('sign-in', { message: 'Invalid email or password' });
    expect(decodeAuthFlash(signIn, 'sign-up')).toBeNull();
    expect(decodeAuthFlash(signIn, 'sign-in')).toEqual({ message: 'Invalid email or password' });
    const malformed = [
      undefined,
      '',
      '%%%',
      'not base64 at all!',
      Buffer.from('{"form":"sign-in"', 'utf8').toString('base64url'), // cut JSON
      raw(null),
      raw('sign-in'),
      raw([1, 2]),
      raw({ form: 'sign-in' }),
      raw({ form: 'sign-in', state: null }),
      raw({ form: 'sign-in', state: 'text' }),
      raw({ form: 'other', state: {} }),
      'A'.repeat(AUTH_FLASH_MAX_BYTES + 1),
    ];
    for (const value of malformed) expect(() => decodeAuthFlash(value, 'sign-in')).not.toThrow();
    for (const value of malformed) expect(decodeAuthFlash(value, 'sign-in'), String(value).slice(0, 40)).toBeNull();
  });

  it('keeps only text of the known shape from a forged value', () => {
    const forged = raw({
      form: 'sign-in',
      state: {
        message: { html: '<b>x</b>' },
        fields: { email: 7, password: 'Enter your password', extra: 'y' },
        values: { email: ['a'], name: 'Bo', password: 'hunter2' },
        extra: true,
      },
    });
    expect(decodeAuthFlash(forged, 'sign-in')).toEqual({ fields: { password: 'Enter your password' }, values: { name: 'Bo' } });
    const long = raw({ form: 'sign-in', state: { message: 'm'.repeat(600) } });
    expect(decodeAuthFlash(long, 'sign-in')?.message).toHaveLength(500);
  });
});
