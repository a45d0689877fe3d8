import { describe, expect, expectTypeOf, it } from 'vitest';
import { agentCreateSchema, agentPatchSchema, agentQuerySchema, NEW_AGENT_DEFAULTS, type AgentCreate } from '@/lib/schemas/agent';
import type { AgentSettings } from '@/lib/types/agent';
import { LIMITS } from '@/lib/limits';
import { ALL_TOOL_NAMES, TOOL_GROUP_NAMES } from '@/lib/tool-groups';

const L = LIMITS.agent;
// One code point each: ASCII, CJK (3 UTF-8 bytes), emoji (a surrogate pair, 4 UTF-8 bytes).
const SAMPLES = { ascii: 'a', cjk: '字', emoji: '😀' } as const;

/** The field paths a parse complains about, or [] when it succeeds. */
function errorPaths(value: unknown, schema: typeof agentCreateSchema | typeof agentPatchSchema = agentCreateSchema): string[] {
  const r = schema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => (i.code === 'unrecognized_keys' ? i.keys.join(',') : i.path.join('.')));
}

describe('agent schema: text bounds at the limit and one past it', () => {
  const cases = [
    { field: 'name', max: L.name.maxChars },
    { field: 'description', max: L.description.maxChars },
    { field: 'instructions', max: L.instructions.maxChars },
  ] as const;

  for (const { field, max } of cases) {
    for (const [script, ch] of Object.entries(SAMPLES)) {
      it(`${field}: ${max} ${script} characters pass, ${max + 1} fail`, async () => {
        const base = { name: 'Agent' };
        const atLimit = agentCreateSchema.safeParse({ ...base, [field]: ch.repeat(max) });
        expect(atLimit.success).toBe(true);
        expect(atLimit.data?.[field]).toBe(ch.repeat(max));
        expect(errorPaths({ ...base, [field]: ch.repeat(max + 1) })).toEqual([field]);
        // The patch schema applies the same bounds.
        expect(errorPaths({ [field]: ch.repeat(max) }, agentPatchSchema)).toEqual([]);
        expect(errorPaths({ [field]: ch.repeat(max + 1) }, agentPatchSchema)).toEqual([field]);
      });
    }
  }

  it('says how long the text is when it is too long', async () => {
    const r = agentCreateSchema.safeParse({ name: 'a'.repeat(65) });
    expect(r.error?.issues[0]?.message).toBe('Must be at most 64 characters (now 65)');
  });
});

describe('agent schema: name', () => {
  it('refuses an empty or whitespace-only name', async () => {
    expect(errorPaths({ name: '' })).toEqual(['name']);
    expect(errorPaths({ name: '   \t ' })).toEqual(['name']);
    expect(errorPaths({ name: '\u3000' })).toEqual(['name']);
    expect(errorPaths({})).toEqual(['name']);
    expect(errorPaths({ name: '' }, agentPatchSchema)).toEqual(['name']);
  });

  it('trims the name before measuring it', async () => {
    const r = agentCreateSchema.safeParse({ name: `  ${'a'.repeat(64)}  ` });
    expect(r.data?.name).toBe('a'.repeat(64));
  });

  it('refuses line breaks and control characters', async () => {
    expect(errorPaths({ name: 'two\nlines' })).toEqual(['name']);
    expect(errorPaths({ name: 'bell\u0007' })).toEqual(['name']);
  });

  it('refuses unpaired surrogates in any text field', async () => {
    expect(errorPaths({ name: 'bad \uD800 name' })).toEqual(['name']);
    expect(errorPaths({ name: 'ok', description: 'x\uDC00' })).toEqual(['description']);
    expect(errorPaths({ name: 'ok', instructions: '\uD83D' })).toEqual(['instructions']);
  });

  it('refuses wrong types', async () => {
    expect(errorPaths({ name: 42 })).toEqual(['name']);
    expect(errorPaths({ name: 'ok', description: null })).toEqual(['description']);
    expect(errorPaths({ name: 'ok', toolGroups: 'utility' })).toEqual(['toolGroups']);
    expect(errorPaths({ name: 'ok', maxTurns: '25' })).toEqual(['maxTurns']);
  });
});

describe('agent schema: defaults and unknown fields', () => {
  it('fills every optional field with its default', async () => {
    expect(agentCreateSchema.parse({ name: 'Solo' })).toEqual({
      name: 'Solo',
      description: '',
      instructions: '',
      model: 'scripted',
      toolGroups: [],
      approvalTools: [],
      mcpTools: [],
      skills: [],
      maxTurns: 25,
      timeLimitMinutes: null,
      compactAtTokens: null,
      tokenBudget: null,
      allowedSubagents: 'all',
      maxDepth: 2,
      maxChildren: 6,
      maxConcurrentChildren: 3,
    });
  });

  it("the agent form's starting values are the schema's defaults, of the schema's own type", async () => {
    // AgentSettings (lib/types/agent.ts) types the zod-free defaults; tsc fails here if it and the schema drift apart.
    expectTypeOf<AgentSettings>().toEqualTypeOf<AgentCreate>();
    // Every field but the name (required, so the form starts it empty) is what the schema fills in.
    expect(NEW_AGENT_DEFAULTS).toEqual({ ...agentCreateSchema.parse({ name: 'x' }), name: '' });
  });

  it('refuses unknown fields by name, on create and on patch', async () => {
    expect(errorPaths({ name: 'ok', temperature: 1 })).toEqual(['temperature']);
    expect(errorPaths({ ownerId: 'someone-else' }, agentPatchSchema)).toEqual(['ownerId']);
  });

  it('accepts an empty patch and sets no defaults on patch', async () => {
    expect(agentPatchSchema.parse({})).toEqual({});
    expect(agentPatchSchema.parse({ maxTurns: 7 })).toEqual({ maxTurns: 7 });
  });
});

describe('agent schema: maxTurns', () => {
  it.each([
    [0, false],
    [1, true],
    [25, true],
    [150, true],
    [151, false],
    [2.5, false],
    [-1, false],
    [Number.NaN, false],
  ])('maxTurns %s → valid %s', (maxTurns, ok) => {
    expect(errorPaths({ name: 'ok', maxTurns })).toEqual(ok ? [] : ['maxTurns']);
  });
});

describe('agent schema: model', () => {
  it.each(['scripted', 'openai:gpt-4.1-mini', 'anthropic:claude-sonnet-4-5', 'ollama:llama3.2', 'ollama:org/model:tag', '  openai:gpt-4o  ', 'acme:model', 'lab-vllm:qwen2.5', `${'a'.repeat(32)}:m`])(
    'accepts %j',
    (model) => {
      expect(errorPaths({ name: 'ok', model })).toEqual([]);
    },
  );

  // A managed provider's slug (ADR 043) is lowercase ASCII, at most 32 characters, and never "scripted".
  it.each(['', 'gpt-4.1-mini', 'openai:', ':gpt', 'Acme:model', 'scripted:x', 'a_b:model', '-acme:m', 'acme-:m', `${'a'.repeat(33)}:m`, '模型:m', '🤖:m', 'Scripted', 'openai:gpt 4', 'openai:-x', `openai:${'m'.repeat(200)}`])(
    'refuses %j with the format hint',
    (model) => {
      const r = agentCreateSchema.safeParse({ name: 'ok', model });
      expect(r.success).toBe(false);
      expect(r.error?.issues.map((i) => i.path.join('.'))).toEqual(['model']);
      expect(r.error?.issues[0]?.message).toMatch(/provider:model/);
    },
  );

  it('stores the model trimmed', async () => {
    expect(agentCreateSchema.parse({ name: 'ok', model: ' ollama:llama3.2 ' }).model).toBe('ollama:llama3.2');
  });
});

describe('agent schema: tool groups and approval tools', () => {
  it('accepts known groups and tools', async () => {
    expect(errorPaths({ name: 'ok', toolGroups: [...TOOL_GROUP_NAMES], approvalTools: ALL_TOOL_NAMES.slice(0, 3) })).toEqual([]);
  });

  it('refuses unknown groups and tools, naming them', async () => {
    const groups = agentCreateSchema.safeParse({ name: 'ok', toolGroups: ['utility', 'shell'] });
    expect(groups.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['toolGroups', 'Unknown tool group: shell']]);
    const tools = agentCreateSchema.safeParse({ name: 'ok', approvalTools: ['calculator', 'rm_rf'] });
    expect(tools.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['approvalTools', 'Unknown tool: rm_rf']]);
  });

  it('refuses repeats and non-string entries', async () => {
    expect(errorPaths({ name: 'ok', toolGroups: ['utility', 'utility'] })).toEqual(['toolGroups']);
    expect(errorPaths({ name: 'ok', approvalTools: ['calculator', 'calculator'] })).toEqual(['approvalTools']);
    expect(errorPaths({ name: 'ok', toolGroups: [1] })).toEqual(['toolGroups.0']);
  });

  it('is case-sensitive about names (no near misses slip through)', async () => {
    expect(errorPaths({ name: 'ok', toolGroups: ['Utility'] })).toEqual(['toolGroups']);
  });
});

describe('agent search text', () => {
  it('is trimmed and bounded', async () => {
    expect(agentQuerySchema.parse('  re  ')).toBe('re');
    expect(agentQuerySchema.safeParse('q'.repeat(200)).success).toBe(true);
    expect(agentQuerySchema.safeParse('q'.repeat(201)).success).toBe(false);
  });
});
