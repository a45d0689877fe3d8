import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addRecipient, filterOptions, listContent, mentionQueryAt, removeRecipient, type MentionOption } from '@/lib/mentions/picker';
import { removeMentionQuery } from '@/lib/mentions/mention-query';
import type { Recipient } from '@/lib/mentions/types';

/** A conversation's target ("Team / Member"); the team composer's are members by name, the rules are the same. */
const target = (teamName: string, memberName: string, memberId = `${teamName}:${memberName}`): MentionOption => ({
  key: memberId,
  label: `${teamName} / ${memberName}`,
});

const launch = [target('Launch crew', 'Researcher'), target('Launch crew', 'Reviewer'), target('Launch crew', 'Writer')];
const docs = target('Docs', 'Writer');
const all = [...launch, docs];
const labels = (list: MentionOption[]) => list.map((t) => t.label);
const keys = (list: MentionOption[]) => list.map((t) => t.key);

describe('mentionQueryAt', () => {
  it('opens for @ at the start or after whitespace, not inside a word', () => {
    expect(mentionQueryAt('@', 1, all)).toEqual({ start: 0, end: 1, query: '' });
    expect(mentionQueryAt('hi @wri', 7, all)).toEqual({ start: 3, end: 7, query: 'wri' });
    expect(mentionQueryAt('hi\n@Do', 6, all)).toEqual({ start: 3, end: 6, query: 'Do' });
    expect(mentionQueryAt('me@example', 10, all)).toBeNull();
  });

  it('keeps a query with spaces only while it prefixes some label', () => {
    expect(mentionQueryAt('@Launch crew / W', 16, all)?.query).toBe('Launch crew / W');
    expect(mentionQueryAt('@Writer please', 14, all)).toBeNull();
  });

  it('reads up to the caret, not the end of the text', () => {
    expect(mentionQueryAt('@Doc and more', 4, all)?.query).toBe('Doc');
  });
});

describe('filterOptions', () => {
  it('matches the label case-insensitively, prefix matches first, then substrings', () => {
    expect(labels(filterOptions(all, 'WRI'))).toEqual(['Launch crew / Writer', 'Docs / Writer']);
    expect(labels(filterOptions(all, 'docs'))).toEqual(['Docs / Writer']);
    expect(labels(filterOptions(all, 'r'))).toEqual(labels(all));
    expect(labels(filterOptions(all, 'launch crew / re'))).toEqual(['Launch crew / Researcher', 'Launch crew / Reviewer']);
    expect(filterOptions(all, 'nobody')).toEqual([]);
  });

  it('offers everyone for an empty query, minus the recipients already picked', () => {
    expect(labels(filterOptions(all, ''))).toEqual(labels(all));
    expect(labels(filterOptions(all, 'writer', [docs.key]))).toEqual(['Launch crew / Writer']);
  });

  it('never returns a picked target and never invents one (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 6 }), fc.subarray(all), (query, chosen) => {
        const result = filterOptions(all, query, keys(chosen));
        expect(result.every((t) => all.includes(t) && !chosen.includes(t))).toBe(true);
        expect(result.every((t) => t.label.toLowerCase().includes(query.trim().toLowerCase()))).toBe(true);
        expect(new Set(result).size).toBe(result.length);
      }),
    );
  });
});

describe('picking', () => {
  it('removes the @query text, puts the caret there and adds the recipient once', () => {
    const text = 'Please @wri check this';
    const query = mentionQueryAt(text, 11, all)!;
    expect(removeMentionQuery(text, query)).toEqual({ text: 'Please check this', caret: 7 });
    const writer = { memberId: launch[2]!.key, label: launch[2]!.label };
    const once = addRecipient([], writer);
    expect(once).toEqual([{ memberId: launch[2]!.key, label: 'Launch crew / Writer' }]);
    expect(addRecipient(once, writer)).toEqual(once);
    expect(removeMentionQuery('@Wri', mentionQueryAt('@Wri', 4, all)!)).toEqual({ text: '', caret: 0 });
  });

  it('leaves text outside the @query untouched (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), fc.constantFrom('', 'w', 'Lau'), (before, after, q) => {
        const head = before === '' || /\s$/.test(before) ? before : `${before} `;
        const text = `${head}@${q}${after}`;
        const caret = head.length + 1 + q.length;
        const query = mentionQueryAt(text, caret, all);
        expect(query).toEqual({ start: head.length, end: caret, query: q });
        const picked = removeMentionQuery(text, query!);
        expect(picked.text.startsWith(head)).toBe(true);
        expect(picked.text.slice(head.length)).toBe(after.startsWith(' ') && (head === '' || /\s$/.test(head)) ? after.slice(1) : after);
      }),
    );
  });
});

describe('labels beyond ASCII', () => {
  const cjk = target('開発チーム', '翻訳者');
  const emoji = target('🚀 Launch', '✍️ Writer');
  const wide = [cjk, emoji, ...all];

  it('opens, filters and keeps spaces for CJK and emoji labels as for ASCII', () => {
    expect(mentionQueryAt('依頼 @開発', 6, wide)).toEqual({ start: 3, end: 6, query: '開発' });
    expect(labels(filterOptions(wide, '開発チーム / 翻'))).toEqual(['開発チーム / 翻訳者']);
    const text = '@🚀 Launch / ✍';
    expect(mentionQueryAt(text, text.length, wide)?.query).toBe('🚀 Launch / ✍');
    expect(labels(filterOptions(wide, '🚀'))).toEqual(['🚀 Launch / ✍️ Writer']);
    // A query with spaces that prefixes no label is ordinary text, whatever the script.
    expect(mentionQueryAt('@開発 です', 6, wide)).toBeNull();
  });
});

describe('removeRecipient', () => {
  it('removes only that recipient', () => {
    const list: Recipient[] = all.map((t) => ({ memberId: t.key, label: t.label }));
    expect(removeRecipient(list, docs.key).map((r) => r.memberId)).toEqual(keys(launch));
  });
});

describe('listContent', () => {
  const base = { options: all as MentionOption[] | undefined, loading: false, error: null as string | null, query: '', pickedKeys: [] as string[] };

  it('says loading until the targets arrive, and shows a load error', () => {
    expect(listContent({ ...base, options: undefined, loading: true })).toEqual({ kind: 'loading' });
    expect(listContent({ ...base, options: undefined, error: 'boom' })).toEqual({ kind: 'error', message: 'boom' });
    expect(listContent({ ...base, options: undefined, loading: true, error: 'boom' })).toEqual({ kind: 'loading' });
  });

  it('tells an owner without ready teams that there is no one to mention', () => {
    expect(listContent({ ...base, options: [] })).toEqual({ kind: 'none' });
  });

  it('distinguishes "no match" from "everyone already picked"', () => {
    expect(listContent({ ...base, query: 'zzz' })).toEqual({ kind: 'no-match' });
    expect(listContent({ ...base, pickedKeys: keys(all) })).toEqual({ kind: 'all-picked' });
    expect(listContent({ ...base, query: 'docs' })).toEqual({ kind: 'options', options: [docs] });
  });
});
