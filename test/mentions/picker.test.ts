import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { filterTargets, mentionQueryAt, pickTarget, popupContent, removeRecipient } from '@/lib/mentions/picker';
import type { MentionTarget, Recipient } from '@/lib/mentions/types';
import { wrapIndex } from '@/lib/mentions/mention-query';

const target = (teamName: string, memberName: string, memberId = `${teamName}:${memberName}`): MentionTarget => ({
  teamId: teamName,
  teamName,
  memberId,
  memberName,
  label: `${teamName} / ${memberName}`,
});

const launch = [target('Launch crew', 'Researcher'), target('Launch crew', 'Reviewer'), target('Launch crew', 'Writer')];
const docs = target('Docs', 'Writer');
const all = [...launch, docs];
const labels = (list: MentionTarget[]) => list.map((t) => t.label);

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

describe('filterTargets', () => {
  it('matches the label case-insensitively, prefix matches first, then substrings', () => {
    expect(labels(filterTargets(all, 'WRI'))).toEqual(['Launch crew / Writer', 'Docs / Writer']);
    expect(labels(filterTargets(all, 'docs'))).toEqual(['Docs / Writer']);
    expect(labels(filterTargets(all, 'r'))).toEqual(labels(all));
    expect(labels(filterTargets(all, 'launch crew / re'))).toEqual(['Launch crew / Researcher', 'Launch crew / Reviewer']);
    expect(filterTargets(all, 'nobody')).toEqual([]);
  });

  it('offers everyone for an empty query, minus the recipients already picked', () => {
    expect(labels(filterTargets(all, ''))).toEqual(labels(all));
    const picked: Recipient[] = [{ memberId: docs.memberId, label: docs.label }];
    expect(labels(filterTargets(all, 'writer', picked))).toEqual(['Launch crew / Writer']);
  });

  it('never returns a picked target and never invents one (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 6 }), fc.subarray(all), (query, chosen) => {
        const picked = chosen.map((t) => ({ memberId: t.memberId, label: t.label }));
        const result = filterTargets(all, query, picked);
        expect(result.every((t) => all.includes(t) && !chosen.includes(t))).toBe(true);
        expect(result.every((t) => t.label.toLowerCase().includes(query.trim().toLowerCase()))).toBe(true);
        expect(new Set(result).size).toBe(result.length);
      }),
    );
  });
});

describe('pickTarget', () => {
  it('removes the @query text, puts the caret there and adds the recipient once', () => {
    const text = 'Please @wri check this';
    const query = mentionQueryAt(text, 11, all)!;
    const once = pickTarget(text, query, [], launch[2]!);
    expect(once).toEqual({ text: 'Please check this', caret: 7, recipients: [{ memberId: launch[2]!.memberId, label: 'Launch crew / Writer' }] });
    const twice = pickTarget('@Wri', mentionQueryAt('@Wri', 4, all)!, once.recipients, launch[2]!);
    expect(twice).toEqual({ text: '', caret: 0, recipients: once.recipients });
  });

  it('leaves text outside the @query untouched (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), fc.constantFrom('', 'w', 'Lau'), (before, after, q) => {
        const head = before === '' || /\s$/.test(before) ? before : `${before} `;
        const text = `${head}@${q}${after}`;
        const caret = head.length + 1 + q.length;
        const query = mentionQueryAt(text, caret, all);
        expect(query).toEqual({ start: head.length, end: caret, query: q });
        const picked = pickTarget(text, query!, [], docs);
        expect(picked.text.startsWith(head)).toBe(true);
        expect(picked.text.slice(head.length)).toBe(after.startsWith(' ') && (head === '' || /\s$/.test(head)) ? after.slice(1) : after);
      }),
    );
  });
});

describe('removeRecipient and arrow keys', () => {
  it('removes only that recipient', () => {
    const list: Recipient[] = all.map((t) => ({ memberId: t.memberId, label: t.label }));
    expect(removeRecipient(list, docs.memberId).map((r) => r.memberId)).toEqual(launch.map((t) => t.memberId));
  });

  it('ArrowDown/ArrowUp wrap at both ends', () => {
    expect(wrapIndex(2, 1, 3)).toBe(0);
    expect(wrapIndex(0, -1, 3)).toBe(2);
    expect(wrapIndex(-1, 1, 0)).toBe(-1);
  });
});

describe('popupContent', () => {
  const base = { targets: all, loading: false, error: null, query: '', picked: [] as Recipient[] };

  it('says loading until the targets arrive, and shows a load error', () => {
    expect(popupContent({ ...base, targets: undefined, loading: true })).toEqual({ kind: 'loading' });
    expect(popupContent({ ...base, targets: undefined, error: 'boom' })).toEqual({ kind: 'error', message: 'boom' });
    expect(popupContent({ ...base, targets: undefined, loading: true, error: 'boom' })).toEqual({ kind: 'loading' });
  });

  it('tells an owner without ready teams that there is no one to mention', () => {
    expect(popupContent({ ...base, targets: [] })).toEqual({ kind: 'none' });
  });

  it('distinguishes "no match" from "everyone already picked"', () => {
    expect(popupContent({ ...base, query: 'zzz' })).toEqual({ kind: 'no-match' });
    const picked = all.map((t) => ({ memberId: t.memberId, label: t.label }));
    expect(popupContent({ ...base, picked })).toEqual({ kind: 'all-picked' });
    expect(popupContent({ ...base, query: 'docs' })).toEqual({ kind: 'options', options: [docs] });
  });
});
