import { describe, expect, it } from 'vitest';
import type { DelegationResult } from '@/lib/types/delegation';
import { submitOutputTool } from '@/server/agents/delegation/output-capture';
import { compileOutputSchema, OUTPUT_SCHEMA_CACHE_MAX, outputSchemaCacheSize } from '@/server/agents/delegation/output-schema';
import { conversationWith, send } from '../agents/helpers';
import { makeUser } from '../support/users';
import { delegationsOf, taskCall, withDelegationScheduler } from './helpers';

withDelegationScheduler();

const ID = 'https://schemas.example.test/shared';

/** One delegation with this schema and submission; its ledger row. */
async function delegate(ownerId: string, schema: Record<string, unknown>, submission: unknown) {
  const { conversation } = await conversationWith(ownerId);
  const run = await send(ownerId, conversation.id, taskCall({ description: 'd', prompt: `/call submit_output ${JSON.stringify(submission)}`, output_schema: schema }));
  return (await delegationsOf(run.id))[0]!;
}

describe('output schemas: one validator per schema, no tenant reaches another', () => {
  it('two owners may use the same $id with different schemas; each is validated by its own', async () => {
    // What must not happen: the second owner's schema refused as "already exists", or checked against the first's.
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const a = await delegate(alice.id, { $id: ID, type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }, { n: 1 });
    const b = await delegate(bob.id, { $id: ID, type: 'object', properties: { s: { type: 'string' } }, required: ['s'] }, { s: 'x' });
    expect(a.result as DelegationResult).toMatchObject({ status: 'completed', structured: { n: 1 } });
    expect(b.result as DelegationResult).toMatchObject({ status: 'completed', structured: { s: 'x' } });
  });

  it('a $ref to a schema another owner registered does not resolve: the schema is refused', async () => {
    // What must not happen: bob's schema reaching (and so probing) a schema alice's delegation brought in.
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    await delegate(alice.id, { $id: `${ID}/alice`, type: 'object', properties: { secret: { type: 'string' } } }, {});
    const row = await delegate(bob.id, { type: 'object', properties: { x: { $ref: `${ID}/alice` } } }, { x: {} });
    expect(row).toMatchObject({ status: 'failed', admittedAt: null });
    expect((row.spec as { refused: Record<string, unknown> }).refused).toMatchObject({ error: 'invalid_output_schema', message: expect.stringContaining("can't resolve reference") });
  });

  it('the compiled-schema cache stays bounded', () => {
    for (let i = 0; i < OUTPUT_SCHEMA_CACHE_MAX + 20; i++) compileOutputSchema({ type: 'object', title: `schema ${i}` });
    expect(outputSchemaCacheSize()).toBe(OUTPUT_SCHEMA_CACHE_MAX);
  });
});

describe('output schemas: patterns on RE2', () => {
  it.each([
    ['ASCII', '^[a-z]{3}$', 'abc', 'abcd'],
    ['CJK', '^[一-龥]{2}$', '日本', '日本語'],
    ['emoji (one code point each, as with the u flag)', '^.{2}$', '😀🎉', '😀🎉✨'],
  ])('%s: a value at the bound matches, one past it does not', (_name, pattern, atLimit, pastLimit) => {
    const { check } = compileOutputSchema({ type: 'object', properties: { s: { type: 'string', pattern } } });
    expect(check({ s: atLimit })).toEqual({ ok: true });
    expect(check({ s: pastLimit })).toMatchObject({ ok: false, reason: expect.stringContaining('must match pattern') });
  });

  it('patternProperties run on RE2 too', () => {
    const { check } = compileOutputSchema({ type: 'object', patternProperties: { '^x_': { type: 'number' } }, additionalProperties: false });
    expect(check({ x_a: 1 })).toEqual({ ok: true });
    expect(check({ x_a: 'one' }).ok).toBe(false);
    expect(check({ y: 1 }).ok).toBe(false);
  });

  it('format is an annotation: no format regex runs', () => {
    const { check } = compileOutputSchema({ type: 'object', properties: { e: { type: 'string', format: 'email' } } });
    expect(check({ e: 'not an email' })).toEqual({ ok: true });
  });

  it('the schema the submit_output tool carries has its regexes as text (LangChain checks it with backtracking RegExps)', () => {
    // What must not happen: a pattern or format reaching LangChain's validator, which runs them with the backtracking engine.
    const schema = {
      type: 'object',
      properties: {
        pattern: { type: 'string', pattern: '^(a+)+$', format: 'email' },
        m: { type: 'object', patternProperties: { '^(b+)+$': { type: 'string' } }, additionalProperties: false },
      },
      enum: [{ pattern: 'kept: data, not a keyword' }],
    };
    const carried = submitOutputTool(schema).schema as Record<string, unknown>;
    const text = JSON.stringify(carried.properties);
    expect(text).not.toMatch(/"(pattern|format)":"/);
    expect(text).not.toContain('"patternProperties"');
    expect(carried).toMatchObject({
      properties: {
        pattern: { type: 'string', description: '(must match the regular expression "^(a+)+$"; format: email)' },
        m: { type: 'object', description: expect.stringContaining('"^(b+)+$"') },
      },
      enum: [{ pattern: 'kept: data, not a keyword' }],
    });
  });
});
