import { describe, expect, it } from 'vitest';
import { authorLabel, fileContentUrl, formatFileSize, refusedBeyond, scopeFilesPath } from '@/components/files/file-format';

describe('formatFileSize', () => {
  it('says bytes in words below a kilobyte, singular for one', () => {
    expect(formatFileSize(0, 'en')).toBe('0 bytes');
    expect(formatFileSize(1, 'en')).toBe('1 byte');
    expect(formatFileSize(1023, 'en')).toBe('1,023 bytes');
  });

  it('steps by 1024 as the server words its limits, with one decimal below ten', () => {
    expect(formatFileSize(1024, 'en')).toBe('1 kB');
    expect(formatFileSize(1536, 'en')).toBe('1.5 kB');
    expect(formatFileSize(12_345, 'en')).toBe('12 kB');
    // The default limit (LIMITS.files.maxBytes) and one byte past it read the same: the refusal says which is which.
    expect(formatFileSize(25 * 1024 * 1024, 'en')).toBe('25 MB');
    expect(formatFileSize(25 * 1024 * 1024 + 1, 'en')).toBe('25 MB');
    expect(formatFileSize(1024 ** 3, 'en')).toBe('1 GB');
  });

  it('never says "1,024 kB": a value shown rounded to 1024 moves up a unit', () => {
    expect(formatFileSize(1023 * 1024, 'en')).toBe('1,023 kB');
    expect(formatFileSize(1023.5 * 1024, 'en')).toBe('1 MB');
    expect(formatFileSize(1024 * 1024 - 1, 'en')).toBe('1 MB');
  });

  it('follows the locale’s own number format', () => {
    expect(formatFileSize(1536, 'de')).toBe('1,5 kB');
  });

  it('shows a dash for what is not a size', () => {
    expect(formatFileSize(-1, 'en')).toBe('—');
    expect(formatFileSize(Number.NaN, 'en')).toBe('—');
  });
});

describe('authorLabel', () => {
  it('is You for the person and the member’s name (CJK and emoji kept) for a member', () => {
    expect(authorLabel({ kind: 'person' })).toBe('You');
    expect(authorLabel({ kind: 'member', memberId: 'm1', name: '研究者 🔬' })).toBe('研究者 🔬');
  });
});

describe('paths', () => {
  it('encodes the scope id and the file id into the API paths', () => {
    expect(scopeFilesPath({ kind: 'team', id: 'a/b' })).toBe('/api/v1/teams/a%2Fb/files');
    expect(scopeFilesPath({ kind: 'conversation', id: 'c1' })).toBe('/api/v1/conversations/c1/files');
    expect(fileContentUrl('f 1', 3)).toBe('/api/v1/files/f%201/content?revision=3');
    expect(fileContentUrl('f1', 2, true)).toBe('/api/v1/files/f1/content?revision=2&inline=1');
  });
});

describe('refusedBeyond', () => {
  it('says how many were left out and the bound, per message or per panel', () => {
    expect(refusedBeyond(1, 10, 'message')).toBe('1 file was not attached: at most 10 files go with one message.');
    expect(refusedBeyond(3, 10, 'message')).toBe('3 files were not attached: at most 10 files go with one message.');
    expect(refusedBeyond(2, 5, 'panel')).toBe('2 files were not uploaded: at most 5 uploads run at once. Add them when these finish.');
  });
});
