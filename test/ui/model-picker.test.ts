import { describe, expect, it } from 'vitest';
import { filterModels, hasListedModels, MAX_SHOWN_MODELS, modelValue, unlistedModelWarning, type ModelCatalogProvider } from '@/lib/model-picker';

const scripted: ModelCatalogProvider = { id: 'scripted', name: 'Built in (scripted)', kind: 'scripted', models: ['scripted'], configured: true };
const lab: ModelCatalogProvider = { id: 'lab', name: 'Lab 🧪 模型', kind: 'openai', models: ['gpt-4.1-mini', 'gpt-4o', 'llama3.2'], configured: true };
const groq: ModelCatalogProvider = { id: 'groq', name: 'Groq', kind: 'openai', models: ['llama3.2', 'mixtral-8x7b'], configured: true };
const openai: ModelCatalogProvider = { id: 'openai', name: 'OpenAI (environment)', kind: 'openai', models: [], configured: true };
const ollama: ModelCatalogProvider = { id: 'ollama', name: 'Ollama (environment)', kind: 'ollama', models: ['qwen'], configured: false };
const catalog = [scripted, lab, groq, openai, ollama];

const values = (query: string, providers = catalog) => filterModels(providers, query).groups.map((g) => [g.provider.id, g.options.map((o) => o.value)]);

describe('model picker: filtering and grouping', () => {
  it('an empty query shows every listed model of every configured provider, grouped in the catalog order', () => {
    expect(values('')).toEqual([
      ['scripted', ['scripted']],
      ['lab', ['lab:gpt-4.1-mini', 'lab:gpt-4o', 'lab:llama3.2']],
      ['groq', ['groq:llama3.2', 'groq:mixtral-8x7b']],
    ]);
    // Options in order are the groups' options flattened: the active index walks them across groups.
    expect(filterModels(catalog, '').options.map((o) => o.value)).toHaveLength(6);
  });

  it('a model listed by two providers shows under each, and the query matches the whole model string case-insensitively', () => {
    expect(values('LLAMA')).toEqual([
      ['lab', ['lab:llama3.2']],
      ['groq', ['groq:llama3.2']],
    ]);
    expect(values('groq:ll')).toEqual([['groq', ['groq:llama3.2']]]);
    expect(values('  4o ')).toEqual([['lab', ['lab:gpt-4o']]]);
  });

  it('a query matching a provider name (CJK, emoji, full-width) shows all its models', () => {
    expect(values('模型')).toEqual([['lab', ['lab:gpt-4.1-mini', 'lab:gpt-4o', 'lab:llama3.2']]]);
    expect(values('🧪')).toEqual([['lab', ['lab:gpt-4.1-mini', 'lab:gpt-4o', 'lab:llama3.2']]]);
    expect(values('ＧＲＯＱ')).toEqual([['groq', ['groq:llama3.2', 'groq:mixtral-8x7b']]]);
  });

  it('CJK and emoji in model names are matched too, and a query matching nothing shows no groups', () => {
    const odd: ModelCatalogProvider = { id: 'odd', name: 'Odd', kind: 'ollama', models: ['通义千问-7b', 'rocket-🚀'], configured: true };
    expect(values('千问', [odd])).toEqual([['odd', ['odd:通义千问-7b']]]);
    expect(values('🚀', [odd])).toEqual([['odd', ['odd:rocket-🚀']]]);
    expect(filterModels(catalog, 'no-such-model')).toEqual({ groups: [], options: [], matched: 0 });
  });

  it('a provider that is not configured offers nothing, even with a list', () => {
    expect(values('qwen')).toEqual([]);
  });

  it('keeps at most the limit and says how many matched, cutting across groups', () => {
    const big: ModelCatalogProvider = { id: 'big', name: 'Big', kind: 'openai', models: Array.from({ length: MAX_SHOWN_MODELS + 5 }, (_, i) => `m-${i}`), configured: true };
    const atLimit = filterModels([big], '');
    expect(atLimit.options).toHaveLength(MAX_SHOWN_MODELS);
    expect(atLimit.matched).toBe(MAX_SHOWN_MODELS + 5);
    const across = filterModels([lab, big], '', 4);
    expect(across.groups.map((g) => [g.provider.id, g.options.length])).toEqual([
      ['lab', 3],
      ['big', 1],
    ]);
    expect(across.matched).toBe(3 + MAX_SHOWN_MODELS + 5);
    expect(filterModels([big], '', MAX_SHOWN_MODELS + 5).options).toHaveLength(MAX_SHOWN_MODELS + 5);
  });

  it('picking fills <provider id>:<model>, or scripted for the embedded model', () => {
    expect(modelValue('lab', 'gpt-4o')).toBe('lab:gpt-4o');
    expect(modelValue('scripted', 'scripted')).toBe('scripted');
    expect(modelValue('ollama', 'org/model:tag')).toBe('ollama:org/model:tag');
  });

  it('knows whether any provider lists models besides the embedded one (the empty state)', () => {
    expect(hasListedModels(catalog)).toBe(true);
    expect(hasListedModels([scripted, openai, ollama])).toBe(false);
  });
});

describe('model picker: the unlisted-model warning', () => {
  it('warns for a well-formed model its provider does not list, naming the provider', () => {
    expect(unlistedModelWarning('lab:gpt-5', catalog)).toBe('Not listed by Lab 🧪 模型 — check the name');
    expect(unlistedModelWarning(' groq:gpt-4o ', catalog)).toBe('Not listed by Groq — check the name');
  });

  it('warns for a well-formed prefix no provider has (the run would fail), once the catalog is known', () => {
    expect(unlistedModelWarning('nobody:gpt-4o', catalog)).toBe('No provider named "nobody" — an admin adds providers on the Admin page');
    expect(unlistedModelWarning('nobody:gpt-4o', [])).toBeNull();
  });

  it('says nothing for a listed model, scripted, a provider with no list, or text that does not parse', () => {
    expect(unlistedModelWarning('lab:gpt-4o', catalog)).toBeNull();
    expect(unlistedModelWarning('scripted', catalog)).toBeNull();
    expect(unlistedModelWarning('openai:gpt-4.1-mini', catalog)).toBeNull(); // the environment's list is unknown
    expect(unlistedModelWarning('gpt4', catalog)).toBeNull(); // the form's validation error says why
    expect(unlistedModelWarning('lab:模型', catalog)).toBeNull(); // not a model name: validation again
    expect(unlistedModelWarning('lab:gpt-4o', [])).toBeNull(); // the catalog has not loaded
  });
});
