import { describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { boundedText } from '@/lib/schemas/common';
import { taskText } from '@/lib/schemas/team';
import {
  boundAnnouncement,
  boundedTextProblem,
  charCount,
  counterLabel,
  describeTextProblem,
  jsonBytes,
  measureText,
  textProblem,
  utf8Bytes,
  type TextBound,
} from '@/lib/text-bounds';
import { checkDraft } from '@/components/conversations/draft';
import { publishState, StateRefusal, type StateActor } from '@/server/teams/state';
import { makeUser } from '../support/users';
import { makeTeam } from '../support/teams';

const task = LIMITS.task; // 4,000 characters, 8,000 bytes

/** For a bound of maxChars characters and maxBytes bytes: the longest text that fits and one character past it. */
function cases(bound: Required<TextBound>): Array<[string, string, string]> {
  const cjkFit = Math.min(bound.maxChars, Math.floor(bound.maxBytes / 3));
  const emojiFit = Math.min(bound.maxChars, Math.floor(bound.maxBytes / 4));
  return [
    ['ASCII', 'a'.repeat(bound.maxChars), 'a'.repeat(bound.maxChars + 1)],
    ['CJK', '研'.repeat(cjkFit), '研'.repeat(cjkFit + 1)],
    ['emoji', '🤖'.repeat(emojiFit), '🤖'.repeat(emojiFit + 1)],
  ];
}

describe('measuring', () => {
  it('counts an emoji as one character of four bytes and CJK as three bytes', () => {
    expect([charCount('🤖'), utf8Bytes('🤖')]).toEqual([1, 4]);
    expect([charCount('研'), utf8Bytes('研')]).toEqual([1, 3]);
    expect([charCount('héllo'), utf8Bytes('héllo')]).toEqual([5, 6]);
  });

  it.each(cases(task))('task bound in %s: the limit fits, one past does not', (_label, atLimit, past) => {
    expect(measureText(atLimit, task).over).toBe(false);
    expect(textProblem(atLimit, task)).toBeNull();
    expect(measureText(past, task).over).toBe(true);
    expect(textProblem(past, task)).toMatchObject({ kind: 'too_long' });
  });

  it('says which bound is passed: CJK passes bytes first, ASCII characters first', () => {
    expect(measureText('研'.repeat(2667), task)).toMatchObject({ chars: 2667, bytes: 8001, overChars: false, overBytes: true });
    expect(measureText('a'.repeat(4001), task)).toMatchObject({ chars: 4001, bytes: 4001, overChars: true, overBytes: false });
  });

  it('measures a value by its JSON text in UTF-8 bytes (quotes and escapes included)', () => {
    expect(jsonBytes('研')).toBe(5); // "研": two quotes + three bytes
    expect(jsonBytes({ a: '🤖' })).toBe(JSON.stringify({ a: '🤖' }).length + 2); // the emoji is 2 UTF-16 units, 4 bytes
    expect(jsonBytes('"')).toBe(4); // "\""
  });

  it('a bound without bytes counts characters only', () => {
    const bound = { maxChars: 3 };
    expect(measureText('🤖🤖🤖', bound)).toMatchObject({ over: false, bytes: 12 });
    expect(measureText('🤖🤖🤖🤖', bound).over).toBe(true);
    expect(counterLabel(measureText('ab', bound), bound)).toBe('2 / 3 characters');
  });

  it('is near the limit from 80 % of either bound on, not one character before', () => {
    expect(measureText('a'.repeat(3199), task).near).toBe(false);
    expect(measureText('a'.repeat(3200), task).near).toBe(true);
    // 2,134 CJK characters are only 53 % of the characters but 80 % of the bytes (6,402 of 8,000).
    expect(measureText('研'.repeat(2133), task).near).toBe(false);
    expect(measureText('研'.repeat(2134), task).near).toBe(true);
  });
});

describe('problems and their wording', () => {
  it('blank is a problem only when required; a lone surrogate always is, whatever its length', () => {
    expect(textProblem('   ', task, { required: true })).toEqual({ kind: 'required' });
    expect(textProblem('', task)).toBeNull();
    expect(textProblem('a\uD800b', task)).toEqual({ kind: 'invalid_character' });
    expect(textProblem('\uDC00'.repeat(5000), task)).toEqual({ kind: 'invalid_character' });
  });

  it('names the limit and the current size', () => {
    expect(boundedTextProblem('🤖'.repeat(2001), task, 'Message')).toBe(
      'Message is too long: at most 4,000 characters and 8,000 UTF-8 bytes (now 2,001 characters, 8,004 bytes)',
    );
    expect(boundedTextProblem('   ', task, 'Message')).toBe('Message is required');
    expect(boundedTextProblem('', task, 'Goal', false)).toBeNull();
    expect(describeTextProblem({ kind: 'invalid_character' }, 'title')).toMatch(/^title contains an invalid character/);
  });

  it('labels the counter with characters and bytes', () => {
    expect(counterLabel(measureText('héllo', task), task)).toBe('5 / 4,000 characters · 6 / 8,000 bytes');
  });

  it('announces only the two steps (near, over), so a screen reader is not told every key press', () => {
    const quiet = boundAnnouncement(measureText('a'.repeat(3199), task), task);
    const near1 = boundAnnouncement(measureText('a'.repeat(3200), task), task);
    const near2 = boundAnnouncement(measureText('a'.repeat(3999), task), task);
    const over = boundAnnouncement(measureText('a'.repeat(4001), task), task);
    expect(quiet).toBe('');
    expect(near1).toBe('Near the limit of 4,000 characters or 8,000 bytes.');
    expect(near2).toBe(near1);
    expect(over).toBe('Over the limit of 4,000 characters or 8,000 bytes: shorten the text.');
  });
});

/**
 * The point of one module: the zod schema (forms and API bodies), the counter and composer in the browser, and the
 * server's state check never disagree about the same text. What must not happen: the counter says it fits and the
 * server refuses it, or the reverse.
 */
describe('schemas, counters and the server agree', () => {
  it.each(cases(task))('task text in %s (team composer schema, conversation draft, counter)', (_label, atLimit, past) => {
    for (const [text, fits] of [
      [atLimit, true],
      [past, false],
    ] as const) {
      expect(taskText.safeParse(text).success).toBe(fits);
      expect(boundedText(task).safeParse(text).success).toBe(fits);
      expect(measureText(text, task).over).toBe(!fits);
      expect(checkDraft(text, task).tooLong).toBe(!fits);
      expect(checkDraft(text, task).error === null).toBe(fits);
    }
  });

  const { title, content } = LIMITS.publicState;
  const refusedByServer = async (actor: StateActor, requestId: string, input: { title: string; content: string }) => {
    try {
      await publishState(actor, { requestId, kind: 'plan', ...input });
      return false;
    } catch (error) {
      if (error instanceof StateRefusal && error.code === 'invalid') return true;
      throw error;
    }
  };

  it.each([
    ...cases(title).map(([label, a, p]) => [`title in ${label}`, 'title', a, p] as const),
    ...cases(content).map(([label, a, p]) => [`content in ${label}`, 'content', a, p] as const),
  ])('team state %s (schema, counter, server state check)', async (_label, field, atLimit, past) => {
    const user = await makeUser('bounds');
    const { team } = await makeTeam(user.id, ['Research', 'Review']);
    const member = team.members[0]!;
    const actor: StateActor = { teamId: team.id, memberId: member.id, conversationId: member.conversationId!, jobId: null };
    const bound = LIMITS.publicState[field];
    let n = 0;
    for (const [text, fits] of [
      [atLimit, true],
      [past, false],
    ] as const) {
      const input = field === 'title' ? { title: text, content: 'c' } : { title: 'T', content: text };
      expect(boundedText(bound).safeParse(text).success).toBe(fits);
      expect(measureText(text, bound).over).toBe(!fits);
      expect(await refusedByServer(actor, `r${++n}`, input)).toBe(!fits);
    }
  });

  it('agrees on a lone surrogate: schema, composer and server all refuse it', async () => {
    const user = await makeUser('bounds');
    const { team } = await makeTeam(user.id, ['Research', 'Review']);
    const member = team.members[0]!;
    const actor: StateActor = { teamId: team.id, memberId: member.id, conversationId: member.conversationId!, jobId: null };
    const bad = 'plan \uD800';
    expect(taskText.safeParse(bad).success).toBe(false);
    expect(checkDraft(bad).error).toMatch(/invalid character/);
    expect(await refusedByServer(actor, 'r', { title: bad, content: 'c' })).toBe(true);
  });
});
