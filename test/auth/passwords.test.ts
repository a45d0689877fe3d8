import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '@/server/auth/passwords';

describe('passwords', () => {
  it('verify only the exact password', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(hash).toMatch(/^\$2[aby]\$/);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery ', hash)).toBe(false);
  });

  it('keep every character significant beyond bcrypt’s 72-byte input limit', async () => {
    const prefix = 'p'.repeat(72);
    const hash = await hashPassword(`${prefix}-one`);
    expect(await verifyPassword(`${prefix}-one`, hash)).toBe(true);
    expect(await verifyPassword(`${prefix}-two`, hash)).toBe(false);
  });

  it('handle multi-byte passwords', async () => {
    const hash = await hashPassword('密码🔒密码🔒');
    expect(await verifyPassword('密码🔒密码🔒', hash)).toBe(true);
    expect(await verifyPassword('密码🔒密码', hash)).toBe(false);
  });
});
