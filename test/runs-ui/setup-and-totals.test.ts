import { describe, expect, it } from 'vitest';
import { changedFieldsLine, fieldLabel, formatSetupValue, setupChangeTexts, shortHash } from '@/components/runs/setup-changes';
import { totalsText } from '@/components/runs/token-totals';

const HASH_A = 'a'.repeat(64);
const HASH_B = '0123456789abcdef'.repeat(4);

describe('setup changes', () => {
  it('names each changed field and shows before → after', () => {
    expect(
      setupChangeTexts([
        { field: 'instructionsHash', before: HASH_A, after: HASH_B },
        { field: 'limits.maxTurns', before: 25, after: 10 },
        { field: 'tools', before: [{ name: 'calculator', group: 'utility' }], after: [] },
        { field: 'limits.tokenBudget', before: null, after: 5000 },
        { field: 'model', before: 'scripted', after: 'openai:gpt-x' },
        { field: 'futureField', before: { a: 1 }, after: true },
      ]),
    ).toEqual([
      { field: 'instructionsHash', label: 'Instructions', before: 'aaaaaaaaaaaa', after: '0123456789ab' },
      { field: 'limits.maxTurns', label: 'Turn limit', before: '25', after: '10' },
      { field: 'tools', label: 'Tools', before: 'calculator (utility)', after: 'none' },
      { field: 'limits.tokenBudget', label: 'Token budget', before: 'none', after: '5000' },
      { field: 'model', label: 'Model', before: 'scripted', after: 'openai:gpt-x' },
      { field: 'futureField', label: 'futureField', before: '{"a":1}', after: 'true' },
    ]);
  });

  it('the badge line lists each field label once', () => {
    expect(
      changedFieldsLine([
        { field: 'instructionsHash', before: 'x', after: 'y' },
        { field: 'model', before: 'a', after: 'b' },
        { field: 'instructionsHash', before: 'y', after: 'z' },
      ]),
    ).toBe('Instructions, Model');
    expect(changedFieldsLine([])).toBe('');
  });

  it('shortens only hash-like strings', () => {
    expect(shortHash(HASH_B)).toBe('0123456789ab');
    expect(formatSetupValue('abc')).toBe('abc');
    expect(formatSetupValue('f'.repeat(31))).toBe('f'.repeat(31));
    expect(formatSetupValue('f'.repeat(32))).toBe('f'.repeat(12));
    expect(formatSetupValue('')).toBe('(empty)');
    expect(formatSetupValue(['a', 'b'])).toBe('a, b');
    expect(formatSetupValue(undefined)).toBe('none');
    expect(fieldLabel('middleware')).toBe('Middleware');
  });
});

describe('token totals', () => {
  it('sums in words, and says when calls reported no usage', () => {
    expect(totalsText({ inputTokens: 0, outputTokens: 0, modelCalls: 0, unreportedCalls: 0 })).toEqual({ main: 'No model calls yet', note: null });
    expect(totalsText({ inputTokens: 1234, outputTokens: 56, modelCalls: 1, unreportedCalls: 0 })).toEqual({
      main: '1,234 tokens in · 56 out · 1 model call',
      note: null,
    });
    expect(totalsText({ inputTokens: 100, outputTokens: 20, modelCalls: 3, unreportedCalls: 1 })).toEqual({
      main: '100 tokens in · 20 out · 3 model calls',
      note: '1 of them reported no token usage (not counted).',
    });
    expect(totalsText({ inputTokens: 0, outputTokens: 0, modelCalls: 2, unreportedCalls: 2 }).note).toBe('The provider reported no token usage for these calls.');
  });
});
