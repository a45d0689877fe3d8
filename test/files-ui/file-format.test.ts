import { describe, expect, it } from 'vitest';
import { authorLabel, fileContentUrl, refusedBeyond, scopeFilesPath } from '@/components/files/file-format';

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
