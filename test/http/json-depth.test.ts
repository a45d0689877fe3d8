import { describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { jsonHasLoneSurrogate, jsonNestsDeeperThan } from '@/lib/text';
import { readJson } from '@/server/http/route';

const nested = (depth: number, open = '[', close = ']', inner = '1') => open.repeat(depth) + inner + close.repeat(depth);
const objects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const req = (text: string) => new Request('http://localhost/x', { method: 'POST', body: text });

describe('jsonNestsDeeperThan (linear scan before JSON.parse)', () => {
  it('counts arrays and objects, at the limit and one past it', () => {
    expect(LIMITS.jsonMaxDepth).toBe(64);
    expect(jsonNestsDeeperThan(nested(64), 64)).toBe(false);
    expect(jsonNestsDeeperThan(nested(65), 64)).toBe(true);
    expect(jsonNestsDeeperThan(objects(64), 64)).toBe(false);
    expect(jsonNestsDeeperThan(objects(65), 64)).toBe(true);
    expect(jsonNestsDeeperThan('[{"a":[{}]}]', 3)).toBe(true);
    expect(jsonNestsDeeperThan('[{"a":[{}]}]', 4)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes and backslashes included', () => {
    expect(jsonNestsDeeperThan(JSON.stringify({ a: '['.repeat(1000) }), 1)).toBe(false);
    expect(jsonNestsDeeperThan(JSON.stringify({ a: 'say \\"[[[[' }), 1)).toBe(false);
    expect(jsonNestsDeeperThan(JSON.stringify({ a: 'end\\' }) + '', 1)).toBe(false);
    expect(jsonNestsDeeperThan(JSON.stringify(['\\', [['x']]]), 2)).toBe(true);
  });

  it('siblings do not add up: depth is nesting, not count', () => {
    expect(jsonNestsDeeperThan(JSON.stringify(Array.from({ length: 10_000 }, () => [[1]])), 3)).toBe(false);
  });
});

describe('jsonHasLoneSurrogate is iterative', () => {
  it('walks a 100,000-level value without overflowing the stack', () => {
    let deep: unknown = '\uD800';
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { k: deep };
    expect(jsonHasLoneSurrogate(deep)).toBe(true);
    let clean: unknown = 'ok';
    for (let i = 0; i < 100_000; i++) clean = [clean];
    expect(jsonHasLoneSurrogate(clean)).toBe(false);
    expect(jsonHasLoneSurrogate({ ['\uDC00']: 1 })).toBe(true);
  });
});

describe('readJson', () => {
  it('accepts 64 levels, refuses 65 with 422 naming the rule', async () => {
    await expect(readJson(req(nested(64)))).resolves.toBeDefined();
    await expect(readJson(req(nested(65)))).rejects.toMatchObject({
      status: 422,
      code: 'validation_error',
      fields: { _: 'JSON nests deeper than 64 levels' },
    });
  });

  it('refuses 100,000 levels with 422, never a stack overflow (body cap raised so depth is what is judged)', async () => {
    for (const text of [nested(100_000), objects(100_000), nested(100_000, '[', '', '')]) {
      await expect(readJson(req(text), 10 * 1024 * 1024)).rejects.toMatchObject({ status: 422 });
    }
  });

  it('still answers 400 for malformed JSON within the depth and 422 for lone surrogates', async () => {
    await expect(readJson(req('[[1]'))).rejects.toMatchObject({ status: 400, code: 'invalid_json' });
    await expect(readJson(req('{"a":"\\ud800"}'))).rejects.toMatchObject({ status: 422 });
  });
});
