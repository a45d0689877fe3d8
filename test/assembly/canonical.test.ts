import { describe, expect, it } from 'vitest';
import type { AssemblyDescriptor } from '@/lib/types/assembly';
import { assemblyChanges } from '@/server/agents/assembly/changes';
import { canonicalJson, fingerprintOf, sha256Hex } from '@/server/agents/assembly/fingerprint';

const descriptor = (): AssemblyDescriptor => ({
  model: 'scripted',
  instructionsHash: sha256Hex('prompt'),
  tools: [
    { name: 'ask_clarification', group: 'clarify' },
    { name: 'calculator', group: 'utility' },
  ],
  approvalTools: ['calculator'],
  limits: { maxTurns: 25, timeLimitMinutes: 15, compactAtTokens: 24_000, tokenBudget: null },
  middleware: ['time-limit', 'max-turns'],
  appVersion: '0.1.0',
});

/** The same value with every object's keys written in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).reverse().map((k) => [k, reversedKeys((value as Record<string, unknown>)[k])]));
}

describe('canonical form and fingerprint', () => {
  it('sorts keys recursively, so key order never changes the text or the fingerprint', async () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}');
    const d = descriptor();
    const reordered = reversedKeys(d) as AssemblyDescriptor;
    expect(JSON.stringify(reordered)).not.toBe(JSON.stringify(d));
    expect(canonicalJson(reordered)).toBe(canonicalJson(d));
    expect(fingerprintOf(reordered)).toBe(fingerprintOf(d));
    const { appVersion: _version, ...setup } = d;
    expect(fingerprintOf(d)).toBe(sha256Hex(canonicalJson(setup)));
    expect(fingerprintOf(d)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('leaves the app version out: an upgrade alone is not a new setup (seed 003)', async () => {
    const d = descriptor();
    expect(fingerprintOf({ ...d, appVersion: '9.9.9' })).toBe(fingerprintOf(d));
    expect(assemblyChanges(d, { ...d, appVersion: '9.9.9' })).toEqual([]);
    // A real change beside an upgrade is still listed, and alone.
    expect(assemblyChanges(d, { ...d, appVersion: '9.9.9', model: 'openai:gpt-4o-mini' }).map((c) => c.field)).toEqual(['model']);
  });

  it('keeps array order (the order of the guards is part of the assembly)', async () => {
    const d = descriptor();
    expect(fingerprintOf({ ...d, middleware: [...d.middleware].reverse() })).not.toBe(fingerprintOf(d));
  });
});

describe('assemblyChanges', () => {
  it('is empty for equal descriptors, whatever their key order', async () => {
    expect(assemblyChanges(descriptor(), reversedKeys(descriptor()) as AssemblyDescriptor)).toEqual([]);
  });

  it('lists exactly the changed fields, nested ones by dotted path, arrays as one field', async () => {
    const before = descriptor();
    const after: AssemblyDescriptor = {
      ...before,
      model: 'openai:gpt-4o-mini',
      tools: [before.tools[1]!],
      limits: { ...before.limits, maxTurns: 5, tokenBudget: 1000 },
    };
    expect(assemblyChanges(before, after)).toEqual([
      { field: 'limits.maxTurns', before: 25, after: 5 },
      { field: 'limits.tokenBudget', before: null, after: 1000 },
      { field: 'model', before: 'scripted', after: 'openai:gpt-4o-mini' },
      { field: 'tools', before: before.tools, after: [before.tools[1]] },
    ]);
  });
});
