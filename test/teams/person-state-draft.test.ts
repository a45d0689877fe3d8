import { describe, expect, it } from 'vitest';
import { createStateEntrySchema } from '@/lib/schemas/team-state';
import type { ApiStateEntry } from '@/lib/types/team';
import { changedParts, draftErrors, hasErrors, projectionUsed } from '@/components/teams/state/state-draft';

/**
 * The panel's own check of a draft must agree with the server's schema at every bound: a draft the form lets through
 * is never refused for its length, and one it stops would have been refused.
 */
const cases: Array<[string, string, string]> = [
  ['title ASCII', 'a'.repeat(80), 'a'.repeat(81)],
  ['title CJK', '東'.repeat(53), '東'.repeat(54)],
  ['title emoji', '😀'.repeat(40), '😀'.repeat(41)],
];
const contentCases: Array<[string, string, string]> = [
  ['content ASCII', 'a'.repeat(1_000), 'a'.repeat(1_001)],
  ['content CJK', '東'.repeat(666), '東'.repeat(667)],
  ['content emoji', '😀'.repeat(500), '😀'.repeat(501)],
];
const serverAccepts = (title: string, content: string) => createStateEntrySchema.safeParse({ requestId: 'r', kind: 'plan', title, content }).success;

describe('state draft checks agree with the server', () => {
  for (const [name, fits, past] of cases) {
    it(`${name}: at the limit passes, one past is stopped with the numbers`, () => {
      expect(draftErrors({ title: fits, content: '' })).toEqual({});
      expect(serverAccepts(fits, '')).toBe(true);
      expect(draftErrors({ title: past, content: '' }).title).toMatch(/Title is too long: at most 80 characters and 160 UTF-8 bytes/);
      expect(serverAccepts(past, '')).toBe(false);
    });
  }
  for (const [name, fits, past] of contentCases) {
    it(`${name}: at the limit passes, one past is stopped`, () => {
      expect(hasErrors(draftErrors({ title: 'T', content: fits }))).toBe(false);
      expect(serverAccepts('T', fits)).toBe(true);
      expect(draftErrors({ title: 'T', content: past }).content).toMatch(/Content is too long/);
      expect(serverAccepts('T', past)).toBe(false);
    });
  }
  it('a blank title is stopped, empty content is fine', () => {
    expect(draftErrors({ title: '  ', content: '' })).toEqual({ title: 'Title is required' });
    expect(serverAccepts('  ', '')).toBe(false);
    expect(draftErrors({ title: 'T', content: '' })).toEqual({});
  });
});

describe('conflict view and projection figure', () => {
  const theirs = { title: 'Launch', content: 'In June', status: 'active' } as const;
  it('marks exactly the parts that differ', () => {
    expect(changedParts({ title: 'Launch', content: 'In May', status: 'active' }, theirs)).toEqual(['content']);
    expect(changedParts({ title: 'Launch', content: 'In June', status: 'archived' }, theirs)).toEqual(['status']);
    expect(changedParts({ ...theirs }, theirs)).toEqual([]);
  });
  it('measures the projection as UTF-8 JSON of the listed entries (emoji 4 bytes, CJK 3)', () => {
    const entry = { id: 'e', title: '😀東' } as unknown as ApiStateEntry;
    expect(projectionUsed([entry])).toBe(Buffer.byteLength(JSON.stringify([entry]), 'utf8'));
    expect(projectionUsed([entry])).toBe('[{"id":"e","title":""}]'.length + 7);
  });
});
