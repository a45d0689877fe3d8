import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getDb, schema, writeTx } from '@/server/db';
import { jsonText } from '@/server/db/dialect';
import { statement } from '@/server/db/statement';
import { storedJsonText, storedParam, storedText } from '@/server/db/stored-text';
import { makeAgent } from '../agents/helpers';
import { makeUser } from '../support/users';

// The database's one repair of text (ADR 046), over all of Unicode: fast-check's default strings are ASCII only, so
// the alphabet here is every code point (unit 'binary'), U+0000 and the C0/C1 controls, and lone surrogate halves.
const loneHalf = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const unit = fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), fc.constantFrom('\u0000', '\u0001', '\u009f', '\t', '\n'), loneHalf);
const anyText = fc.string({ unit, maxLength: 40 });

const isStorable = (s: string) => s.isWellFormed() && !s.includes('\u0000');
const everyString = (value: unknown, test: (s: string) => boolean): boolean =>
  typeof value === 'string'
    ? test(value)
    : Array.isArray(value)
      ? value.every((v) => everyString(v, test))
      : value !== null && typeof value === 'object'
        ? Object.entries(value).every(([k, v]) => test(k) && everyString(v, test))
        : true;

describe('storedText', () => {
  it('any text comes out storable, one U+FFFD per NUL or lone half, and text without either unchanged', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const stored = storedText(text);
        expect(isStorable(stored)).toBe(true);
        expect(stored.length).toBe(text.length);
        if (isStorable(text)) expect(stored).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('at the edges: NUL alone, a high half at the end, a low half first, a pair kept, CJK and emoji kept', () => {
    expect(storedText('\u0000')).toBe('\uFFFD');
    expect(storedText('计划🚀\uD83D')).toBe('计划🚀\uFFFD');
    expect(storedText('\uDE80计划')).toBe('\uFFFD计划');
    expect(storedText('\uD83D\uDE80')).toBe('🚀');
  });
});

describe('storedJsonText', () => {
  const jsonOf = fc.oneof(fc.dictionary(anyText, anyText, { maxKeys: 4 }), fc.array(anyText, { maxLength: 4 }));

  it('JSON.stringify of any value: still parses, to the same value with its texts repaired (keys included)', () => {
    fc.assert(
      fc.property(jsonOf, (value) => {
        const repaired = JSON.parse(storedJsonText(JSON.stringify(value))) as unknown;
        expect(everyString(repaired, isStorable)).toBe(true);
        const expected = Array.isArray(value) ? value.map(storedText) : Object.fromEntries(Object.entries(value).map(([k, v]) => [storedText(k), storedText(v)]));
        expect(repaired).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('text that only mentions an escape is not JSON and is left as written', () => {
    // Must not happen: a person's message about "\u0000" (six characters) changed on its way in.
    for (const text of ['a literal \\u0000 in prose', '"\\u0000"', '{not json \\u0000', '{"a":"\\\\u0000"}']) expect(storedParam(text)).toBe(text);
  });
});

describe('on the database (both engines: under test:pg this file runs on Postgres)', () => {
  it('a text column and a JSON column keep any text, repaired, and a JSON member read in SQL still answers', async () => {
    const owner = await makeUser('owner');
    const agent = await makeAgent(owner.id);
    const description = statement('select description from agents where id = ?');
    const firstGroup = statement(`select ${jsonText('tool_groups', 0)} as v from agents where id = ?`);
    await fc.assert(
      fc.asyncProperty(anyText, async (text) => {
        await writeTx((tx) => tx.update(schema.agents).set({ description: text, toolGroups: [text] }).where(eq(schema.agents.id, agent.id)));
        const [row] = await getDb().select().from(schema.agents).where(eq(schema.agents.id, agent.id));
        expect(row).toMatchObject({ description: storedText(text), toolGroups: [storedText(text)] });
        expect(await description.get(agent.id)).toEqual({ description: storedText(text) });
        // Postgres: a `\u0000` escape anywhere in a json value makes `->>` fail for the whole row.
        expect(await firstGroup.get(agent.id)).toEqual({ v: storedText(text) });
      }),
      { numRuns: 40 },
    );
  });

  it('a lookup by a key holding NUL finds the row written with it (the same repair on the way in and in the query)', async () => {
    const owner = await makeUser('owner');
    const key = `key\u0000${crypto.randomUUID()}\uD800`;
    const agent = await makeAgent(owner.id, { description: key });
    const found = await getDb().select({ id: schema.agents.id }).from(schema.agents).where(eq(schema.agents.description, key));
    expect(found).toEqual([{ id: agent.id }]);
  });
});
