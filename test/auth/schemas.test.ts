import { describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import {
  changePasswordFormSchema,
  changePasswordSchema,
  createTokenSchema,
  safeCallbackPath,
  signInSchema,
  signUpSchema,
} from '@/lib/schemas/auth';

const issues = (result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) =>
  Object.fromEntries((result.error?.issues ?? []).map((i) => [i.path.join('.'), i.message]));

describe('signUpSchema', () => {
  const base = { email: 'ann@example.test', password: 'password' };

  it('normalizes the email and accepts an optional name', () => {
    expect(signUpSchema.parse({ ...base, email: '  Ann@Example.TEST ' })).toEqual({ email: 'ann@example.test', password: 'password' });
    expect(signUpSchema.parse({ ...base, name: 'Ann' }).name).toBe('Ann');
  });

  it.each([
    ['ASCII', 'a'],
    ['CJK', '密'],
    ['emoji', '🔒'],
  ])('password: %s at 8 characters passes, 7 fails, 200 passes, 201 fails', (_label, ch) => {
    const { minChars, maxChars } = LIMITS.user.password;
    expect(signUpSchema.safeParse({ ...base, password: ch.repeat(minChars) }).success).toBe(true);
    expect(issues(signUpSchema.safeParse({ ...base, password: ch.repeat(minChars - 1) }))).toEqual({ password: 'Must be at least 8 characters' });
    expect(signUpSchema.safeParse({ ...base, password: ch.repeat(maxChars) }).success).toBe(true);
    expect(issues(signUpSchema.safeParse({ ...base, password: ch.repeat(maxChars + 1) }))).toEqual({
      password: 'Must be at most 200 characters (now 201)',
    });
  });

  it.each([
    ['ASCII', 'n'],
    ['CJK', '名'],
    ['emoji', '🙂'],
  ])('name: %s at 80 characters passes, 81 fails', (_label, ch) => {
    const max = LIMITS.user.name.maxChars;
    expect(signUpSchema.safeParse({ ...base, name: ch.repeat(max) }).success).toBe(true);
    expect(issues(signUpSchema.safeParse({ ...base, name: ch.repeat(max + 1) }))).toEqual({ name: 'Must be at most 80 characters (now 81)' });
  });

  it('refuses bad emails, lone surrogates and unknown fields', () => {
    expect(issues(signUpSchema.safeParse({ ...base, email: '' }))).toEqual({ email: 'Enter your email' });
    expect(issues(signUpSchema.safeParse({ ...base, email: 'ann@' }))).toEqual({ email: 'Enter a valid email address' });
    const long = `${'a'.repeat(64)}@${'b'.repeat(185)}.test`; // 255 characters
    expect(issues(signUpSchema.safeParse({ ...base, email: long }))).toEqual({ email: 'Must be at most 254 characters' });
    expect(issues(signUpSchema.safeParse({ ...base, password: 'password\ud800' }))).toEqual({ password: 'Contains an unpaired UTF-16 surrogate' });
    expect(signUpSchema.safeParse({ ...base, role: 'admin' }).success).toBe(false);
  });
});

describe('signInSchema', () => {
  it('only asks that something was typed', () => {
    expect(signInSchema.safeParse({ email: 'ann@example.test', password: 'x' }).success).toBe(true);
    expect(issues(signInSchema.safeParse({ email: '', password: '' }))).toEqual({ email: 'Enter your email', password: 'Enter your password' });
  });
});

describe('createTokenSchema', () => {
  it('requires a non-blank name and the password', () => {
    expect(issues(createTokenSchema.safeParse({ name: ' ', password: 'pw' }))).toEqual({ name: 'Required' });
    expect(issues(createTokenSchema.safeParse({ name: 'cli' }))).toEqual({ password: 'Enter your password' });
    expect(issues(createTokenSchema.safeParse({ name: 'cli', password: '' }))).toEqual({ password: 'Enter your password' });
  });

  it('takes a lifetime of 30 or 90 days or null (never), defaulting to never', () => {
    expect(createTokenSchema.parse({ name: 'cli', password: 'pw' }).expiresInDays).toBeNull();
    expect(createTokenSchema.parse({ name: 'cli', password: 'pw', expiresInDays: 30 }).expiresInDays).toBe(30);
    expect(createTokenSchema.parse({ name: 'cli', password: 'pw', expiresInDays: 90 }).expiresInDays).toBe(90);
    for (const bad of [0, 31, 365, '30', -1, 1e9]) {
      expect(Object.keys(issues(createTokenSchema.safeParse({ name: 'cli', password: 'pw', expiresInDays: bad })))).toEqual([
        'expiresInDays',
      ]);
    }
  });
});

describe('changePasswordFormSchema', () => {
  it('needs the current password, a valid new one, and the same new one twice', () => {
    const ok = { currentPassword: 'old', newPassword: 'new password', confirmPassword: 'new password' };
    expect(changePasswordFormSchema.safeParse(ok).success).toBe(true);
    expect(issues(changePasswordFormSchema.safeParse({ ...ok, confirmPassword: 'new passwort' }))).toEqual({
      confirmPassword: 'The two new passwords differ',
    });
    expect(issues(changePasswordFormSchema.safeParse({ ...ok, currentPassword: '' }))).toEqual({ currentPassword: 'Enter your password' });
    expect(issues(changePasswordSchema.safeParse({ currentPassword: 'old', newPassword: 'short7!' }))).toEqual({
      newPassword: 'Must be at least 8 characters',
    });
    expect(changePasswordSchema.safeParse({ currentPassword: 'old', newPassword: '12345678' }).success).toBe(true);
  });
});

describe('safeCallbackPath', () => {
  it('keeps same-origin paths with their query and hash', () => {
    expect(safeCallbackPath('/agents')).toBe('/agents');
    expect(safeCallbackPath('/conversations/1?x=1#end')).toBe('/conversations/1?x=1#end');
    expect(safeCallbackPath('/a/../settings')).toBe('/settings');
  });

  it.each([
    'https://evil.example/',
    '//evil.example/x',
    '/\\evil.example',
    '\\\\evil.example',
    'javascript:alert(1)',
    'agents',
    '/\tevil',
    '',
    undefined,
    42,
  ])('refuses %s', (value) => {
    expect(safeCallbackPath(value)).toBeNull();
  });
});
