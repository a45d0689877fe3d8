import { describe, expect, it } from 'vitest';
import { filterByName, findMentionQuery, removeMentionQuery } from '@/lib/mentions/mention-query';

describe('findMentionQuery', () => {
  it('finds @ at the start and after whitespace, with the text up to the caret', () => {
    expect(findMentionQuery('@Re', 3)).toEqual({ start: 0, end: 3, query: 'Re' });
    expect(findMentionQuery('hi @wr', 6)).toEqual({ start: 3, end: 6, query: 'wr' });
    expect(findMentionQuery('line\n@x', 7)).toEqual({ start: 5, end: 7, query: 'x' });
    expect(findMentionQuery('tab\t@', 5)).toEqual({ start: 4, end: 5, query: '' });
  });

  it('ignores @ inside a word (an email address) and text after the caret', () => {
    expect(findMentionQuery('me@example', 10)).toBeNull();
    expect(findMentionQuery('@Re and more', 12)).toBeNull();
    expect(findMentionQuery('@Re and more', 2)).toEqual({ start: 0, end: 2, query: 'R' });
    expect(findMentionQuery('no mention', 10)).toBeNull();
  });

  it('keeps a query with spaces only while it prefixes a member name', () => {
    const names = ['Research Lead', 'Writer'];
    expect(findMentionQuery('@research l', 11, names)).toEqual({ start: 0, end: 11, query: 'research l' });
    expect(findMentionQuery('@writer please', 14, names)).toBeNull();
    expect(findMentionQuery('@Re x', 5)).toBeNull();
  });

  it('never spans a line break and gives up on very long runs', () => {
    expect(findMentionQuery('@abc\ndef', 8)).toBeNull();
    expect(findMentionQuery('@' + 'a'.repeat(200), 201)).toBeNull();
  });

  it('handles out-of-range carets and emoji queries', () => {
    expect(findMentionQuery('@a', 5)).toBeNull();
    expect(findMentionQuery('@🤖', 3)).toEqual({ start: 0, end: 3, query: '🤖' });
  });
});

describe('filterByName', () => {
  const members = [{ name: 'Writer' }, { name: 'Researcher' }, { name: 'Reviewer' }, { name: 'Lore keeper' }];

  it('matches case-insensitively with prefix matches first', () => {
    expect(filterByName(members, 're').map((m) => m.name)).toEqual(['Researcher', 'Reviewer', 'Lore keeper']);
    expect(filterByName(members, 'WRI').map((m) => m.name)).toEqual(['Writer']);
  });

  it('returns everything for an empty query and nothing for a miss', () => {
    expect(filterByName(members, '')).toHaveLength(4);
    expect(filterByName(members, 'zzz')).toEqual([]);
  });
});

describe('removeMentionQuery', () => {
  it('removes the @query and puts the caret where it started', () => {
    expect(removeMentionQuery('@Re', { start: 0, end: 3, query: 'Re' })).toEqual({ text: '', caret: 0 });
    expect(removeMentionQuery('Please @wr review', { start: 7, end: 10, query: 'wr' })).toEqual({
      text: 'Please review',
      caret: 7,
    });
    expect(removeMentionQuery('a @x\nb', { start: 2, end: 4, query: 'x' })).toEqual({ text: 'a \nb', caret: 2 });
  });
});
