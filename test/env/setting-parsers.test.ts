import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { httpUrl, wholeNumber } from '@/lib/env-setting';

const parse = <T>(schema: { safeParse(text: string): { success: boolean; data?: T } }, text: string) => {
  const r = schema.safeParse(text);
  return r.success ? r.data : 'refused';
};

describe('wholeNumber (plain, browser-safe)', () => {
  const n = wholeNumber(1, 120);
  it('accepts the bounds and refuses one past each', () => {
    expect(parse(n, '1')).toBe(1);
    expect(parse(n, '120')).toBe(120);
    expect(parse(n, '0')).toBe('refused');
    expect(parse(n, '121')).toBe('refused');
  });
  it('ignores surrounding blanks but refuses signs, decimals, exponents and words', () => {
    expect(parse(n, ' 7 ')).toBe(7);
    expect(parse(n, '007')).toBe(7);
    for (const bad of ['+7', '-7', '7.0', '1e2', '0x10', 'seven', '7 7', '']) expect(parse(n, bad)).toBe('refused');
  });
  it('refuses a number past the safe integers instead of rounding it', () => {
    expect(parse(wholeNumber(0), '9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    expect(parse(wholeNumber(0), '9007199254740993')).toBe('refused');
  });
});

describe('httpUrl (plain, browser-safe)', () => {
  it('keeps an http(s) URL as written (trimmed) and refuses other schemes and bare hosts', () => {
    expect(parse(httpUrl(), ' http://localhost:11434 ')).toBe('http://localhost:11434');
    expect(parse(httpUrl(), 'https://example.test/v1')).toBe('https://example.test/v1');
    for (const bad of ['localhost:11434', 'ftp://example.test', 'javascript:alert(1)', '']) expect(parse(httpUrl(), bad)).toBe('refused');
  });
});

describe('zod stays out of what every page loads', () => {
  // lib/limits.ts (imported by forms and the feed) loads env-limits and env-setting; Providers wraps every page.
  // What must not happen: one of them importing zod again, putting ~30 kB gzip on every page.
  it.each(['lib/env-setting.ts', 'lib/env-limits.ts', 'lib/limits.ts', 'components/providers.tsx'])('%s does not import zod', (file) => {
    const source = readFileSync(path.resolve(import.meta.dirname, '../..', file), 'utf8');
    expect(source).not.toMatch(/from ['"]zod/);
  });
});
