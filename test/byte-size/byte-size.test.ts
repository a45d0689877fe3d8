import { describe, expect, it } from 'vitest';
import { formatBytes } from '@/lib/byte-size';
import { LIMITS } from '@/lib/limits';

describe('formatBytes', () => {
  it('names binary units as such: the 25 MiB file limit (26,214,400 bytes) reads "25 MiB", never "25 MB"', () => {
    expect(LIMITS.files.maxBytes).toBe(26_214_400);
    expect(formatBytes(LIMITS.files.maxBytes, 'en')).toBe('25 MiB');
    expect(formatBytes(LIMITS.files.quotaBytesPerAccount, 'en')).toBe('1 GiB');
    expect(formatBytes(LIMITS.skills.zipBytes, 'en')).toBe('2 MiB');
  });

  it('says bytes in words below 1 KiB (singular for one), and steps by 1024 with three significant digits above', () => {
    expect(formatBytes(0, 'en')).toBe('0 bytes');
    expect(formatBytes(1, 'en')).toBe('1 byte');
    expect(formatBytes(1023, 'en')).toBe('1,023 bytes');
    expect(formatBytes(1024, 'en')).toBe('1 KiB');
    expect(formatBytes(1536, 'en')).toBe('1.5 KiB');
    expect(formatBytes(12_345, 'en')).toBe('12.1 KiB');
    expect(formatBytes(1023 * 1024, 'en')).toBe('1,023 KiB');
    expect(formatBytes(1024 * 1024 - 1, 'en')).toBe('1 MiB');
  });

  it('follows the locale’s own number format', () => {
    expect(formatBytes(1536, 'de')).toBe('1,5 KiB');
    expect(formatBytes(1000, 'de')).toBe('1.000 Byte');
  });

  it('shows a dash for what is not a size', () => {
    expect(formatBytes(-1, 'en')).toBe('—');
    expect(formatBytes(Number.NaN, 'en')).toBe('—');
    expect(formatBytes(Number.POSITIVE_INFINITY, 'en')).toBe('—');
  });
});
