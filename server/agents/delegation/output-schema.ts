import 'server-only';
import { Ajv, type ValidateFunction } from 'ajv';
import { RE2JS } from 're2js';
import { TaskRefusal } from './spec';

/**
 * An output schema (a model wrote it: untrusted) compiled for validation (docs/decisions/047):
 * - every regex in it (`pattern`, `patternProperties` keys) runs on RE2, linear in the input, so no pattern can block
 *   the event loop; a pattern RE2 can't compile (backreferences, lookaround) is refused naming its field, never run
 *   on the backtracking engine instead;
 * - each schema gets its own Ajv instance, so a `$id` it declares is seen by no other schema and its `$ref`s reach
 *   nothing outside itself (Ajv's registry is per instance, and there is no loader for remote refs);
 * - compiled schemas are kept in a small LRU, so the cache is bounded.
 */
export type OutputSchemaCheck = (value: unknown) => { ok: true } | { ok: false; reason: string };

type Compiled = { check: OutputSchemaCheck; modelSchema: Record<string, unknown> };

export const OUTPUT_SCHEMA_CACHE_MAX = 64;
const cache = new Map<string, Compiled>();

/** Ajv's regex engine: RE2, with JavaScript syntax translated. toString is Ajv's cache key for a pattern. */
function re2Engine(pattern: string): { test(s: string): boolean; toString(): string } {
  const re = RE2JS.compile(RE2JS.translateRegExp(pattern));
  return { test: (s: string) => re.test(s), toString: () => `re2:${pattern}` };
}
re2Engine.code = 're2js';

// strict: false — a schema written by a model may carry keywords Ajv does not know (title, examples, …); they are
// ignored, while every validation keyword it does know is enforced. `format` is an annotation only: Ajv here has
// no format validators, and asserting them would mean running more regexes.
const OPTIONS = { strict: false, allErrors: false, validateFormats: false, code: { regExp: re2Engine } } as const;

// Checking a schema against the meta-schema needs the meta-schema compiled (tens of ms): done once, on an instance
// that only ever validates schemas as data (validateSchema registers nothing, so no user's $id lands in it).
const g = globalThis as unknown as { __ensembleMetaSchemaAjv?: Ajv };
const metaChecker = () => (g.__ensembleMetaSchemaAjv ??= new Ajv(OPTIONS));

/** A fresh instance per schema (its own $id registry), compiling without the meta-schema check (done above). */
const newAjv = () => new Ajv({ ...OPTIONS, validateSchema: false });

/** The compiled schema, or a typed refusal: object-rooted, every regex RE2 can run, and it compiles. */
export function compileOutputSchema(schema: Record<string, unknown>): Compiled {
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  if (schema.type !== 'object') throw new TaskRefusal('invalid_output_schema', 'output_schema must be a JSON Schema whose root has "type": "object"');
  for (const site of regexSites(schema)) {
    try {
      re2Engine(site.pattern);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new TaskRefusal(
        'invalid_output_schema',
        `output_schema.${site.field}: this regular expression can't run in linear time (backreferences and lookaround are not supported): ${why}`.slice(0, 500),
        { field: `output_schema.${site.field}` },
      );
    }
  }
  const meta = metaChecker();
  if (!meta.validateSchema(schema)) throw new TaskRefusal('invalid_output_schema', `output_schema is not a usable JSON Schema: ${meta.errorsText(meta.errors)}`.slice(0, 500));
  const ajv = newAjv();
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (err) {
    throw new TaskRefusal('invalid_output_schema', `output_schema is not a usable JSON Schema: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500));
  }
  const compiled: Compiled = {
    check: (value) => (validate(value) ? { ok: true } : { ok: false, reason: ajv.errorsText(validate.errors) }),
    modelSchema: withoutRegexKeywords(schema) as Record<string, unknown>,
  };
  cache.set(key, compiled);
  if (cache.size > OUTPUT_SCHEMA_CACHE_MAX) cache.delete(cache.keys().next().value!);
  return compiled;
}

/** How many compiled schemas are kept (tests: the cache is bounded). */
export const outputSchemaCacheSize = () => cache.size;

// Keywords whose value maps names to subschemas (the names are not keywords), and keywords whose value is data.
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);
const DATA = new Set(['enum', 'const', 'default', 'examples', 'required']);
const REGEX_KEYWORDS = new Set(['pattern', 'patternProperties', 'format']);

type Site = { field: string; pattern: string };

/** Every regex in the schema with its path, in any object that is a schema position (unknown keywords included: a `$ref` can point there). */
function regexSites(node: unknown, path = '', out: Site[] = []): Site[] {
  if (Array.isArray(node)) node.forEach((v, i) => regexSites(v, `${path}[${i}]`, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      const field = path ? `${path}.${k}` : k;
      if (DATA.has(k)) continue;
      if (k === 'pattern' && typeof v === 'string') out.push({ field, pattern: v });
      if (k === 'patternProperties' && v && typeof v === 'object' && !Array.isArray(v)) {
        for (const name of Object.keys(v)) out.push({ field: `${field}[${JSON.stringify(name)}]`, pattern: name });
      }
      if (NAME_MAPS.has(k) && v && typeof v === 'object' && !Array.isArray(v)) {
        for (const [name, sub] of Object.entries(v)) regexSites(sub, `${field}[${JSON.stringify(name)}]`, out);
      } else regexSites(v, field, out);
    }
  }
  return out;
}

/**
 * The schema as the `submit_output` tool carries it (shown to the model, and checked by LangChain's own validator,
 * which runs `pattern` and `format` with the backtracking engine): regex keywords moved into the description,
 * `additionalProperties` beside a removed `patternProperties` dropped (it would refuse what those patterns allow).
 * The full check is compileOutputSchema's.
 */
function withoutRegexKeywords(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutRegexKeywords);
  if (!node || typeof node !== 'object') return node;
  const source = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const notes: string[] = [];
  for (const [k, v] of Object.entries(source)) {
    if (DATA.has(k)) out[k] = v;
    else if (REGEX_KEYWORDS.has(k)) {
      if (k === 'pattern' && typeof v === 'string') notes.push(`must match the regular expression ${JSON.stringify(v)}`);
      else if (k === 'format' && typeof v === 'string') notes.push(`format: ${v}`);
      else if (k === 'patternProperties' && v && typeof v === 'object') notes.push(`property names matching ${Object.keys(v).map((p) => JSON.stringify(p)).join(', ')} are allowed`);
    } else if (k === 'additionalProperties' && 'patternProperties' in source) continue;
    else if (NAME_MAPS.has(k) && v && typeof v === 'object' && !Array.isArray(v)) {
      out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, withoutRegexKeywords(sub)]));
    } else out[k] = withoutRegexKeywords(v);
  }
  if (notes.length) out.description = [typeof source.description === 'string' ? source.description : '', `(${notes.join('; ')})`].filter(Boolean).join(' ');
  return out;
}
