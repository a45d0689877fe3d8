import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ActionFailure, actionData, actionResult } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';
import { LIMITS } from '@/lib/limits';
import { actionId, actionInput } from '@/server/http/action-input';
import { toActionResult } from '@/server/http/action-result';

const anything = z.unknown();
const refusal = (value: unknown) => toActionResult(() => actionInput(anything, value));
const nested = (depth: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = i % 2 ? { k: value } : [value];
  return value;
};

describe('actionInput: an action argument must be the plain JSON readJson would give a route', () => {
  it('accepts plain JSON, nested exactly to the limit', async () => {
    for (const value of [null, true, 0, -1.5, 'text', [], {}, { a: [1, { b: 'c' }] }, Object.create(null) as object, nested(LIMITS.jsonMaxDepth)]) {
      expect(await refusal(value)).toEqual({ ok: true, data: value });
    }
  });

  it('refuses one level deeper than the limit, as the API does, without recursing', async () => {
    expect(await refusal(nested(LIMITS.jsonMaxDepth + 1))).toMatchObject({
      ok: false,
      error: { code: 'validation_error', fields: { _: `JSON nests deeper than ${LIMITS.jsonMaxDepth} levels` } },
    });
    expect(await refusal(nested(100_000))).toMatchObject({ ok: false, error: { code: 'validation_error' } });
  });

  it("refuses what React's action encoding carries beyond JSON: Date, Map, Set, BigInt, undefined inside arrays, NaN, Infinity", async () => {
    const values = [new Date(), new Map([['a', 1]]), new Set([1]), 10n, { at: new Date() }, [undefined], Number.NaN, { n: Infinity }, () => 1];
    for (const value of values) {
      expect(await refusal(value), String(value)).toMatchObject({ ok: false, error: { code: 'validation_error', fields: { _: expect.any(String) } } });
    }
  });

  it('refuses unpaired surrogates in values and in keys', async () => {
    for (const value of ['\ud800', { text: 'ok\udc00' }, { ['\ud800']: 1 }, ['a', ['\udfff']]]) {
      expect(await refusal(value)).toMatchObject({ ok: false, error: { fields: { _: 'Text contains an unpaired UTF-16 surrogate' } } });
    }
    expect(await refusal('🤖 paired')).toMatchObject({ ok: true });
  });

  it('takes an undefined property as absent, as JSON.stringify would have sent it', async () => {
    const schema = z.strictObject({ approved: z.boolean(), note: z.string().optional() });
    expect(await toActionResult(() => actionInput(schema, { approved: false, note: undefined }))).toMatchObject({ ok: true, data: { approved: false } });
    expect(await refusal(undefined)).toMatchObject({ ok: false, error: { code: 'validation_error' } });
  });

  it('then validates with the schema, naming each field', async () => {
    const schema = z.strictObject({ name: z.string().min(1, 'Required') });
    expect(await toActionResult(() => actionInput(schema, { name: '', extra: 1 }))).toEqual({
      ok: false,
      error: { code: 'validation_error', message: expect.any(String), fields: { name: 'Required', extra: 'Unknown field' } },
    });
  });

  it('actionId takes strings only: anything else is no id', () => {
    expect(actionId('abc')).toBe('abc');
    for (const value of [undefined, null, 1, ['abc'], { id: 'abc' }]) expect(actionId(value)).toBe('');
  });
});

describe('actionData: what a mutation sees of an action', () => {
  it('hands back the data of a success', async () => {
    await expect(actionData(async () => ({ ok: true, data: { id: 'x' } }))).resolves.toEqual({ id: 'x' });
  });

  it('throws a refusal as an ApiError with the code, message and fields (status 0: decide on code)', async () => {
    const err = await actionData(async () => ({ ok: false, error: { code: 'validation_error', message: 'text: Too long', fields: { text: 'Too long' } } })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ActionFailure);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 0, code: 'validation_error', message: 'text: Too long', fields: { text: 'Too long' } });
    const bare = await actionData(async () => ({ ok: false, error: { code: 'not_found', message: 'Team not found' } })).catch((e: unknown) => e);
    expect(bare).toMatchObject({ code: 'not_found', fields: {} });
  });

  it('turns a thrown action (network, server crash) into network_error', async () => {
    const err = await actionData(() => Promise.reject(new TypeError('Failed to fetch'))).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'network_error', message: expect.stringMatching(/^Could not reach the server/) });
  });

  it('actionResult (what the Admin forms read): a success and a refusal as they came, a thrown call as network_error', async () => {
    await expect(actionResult(async () => ({ ok: true, data: 1 }))).resolves.toEqual({ ok: true, data: 1 });
    const refused = { ok: false as const, error: { code: 'email_taken', message: 'Taken', fields: { email: 'Taken' } } };
    await expect(actionResult(async () => refused)).resolves.toEqual(refused);
    // Must not happen: a failed call escaping as a rejection the form never catches (its button would stay pending).
    await expect(actionResult(() => Promise.reject(new TypeError('Failed to fetch')))).resolves.toEqual({
      ok: false,
      error: { code: 'network_error', message: expect.stringMatching(/^Could not reach the server/) },
    });
  });

  it('toActionResult rethrows what is not an AppError (a crash is not a refusal)', async () => {
    await expect(toActionResult(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });
});
