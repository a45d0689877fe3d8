import 'server-only';
import { Ajv, type ValidateFunction } from 'ajv';
import { RE2JS } from 're2js';

/**
 * A JSON Schema someone else wrote (a model's output schema, an MCP server's tool input schema: untrusted) compiled
 * for validation (docs/decisions/047, 054):
 * - every regex in it (`pattern`, `patternProperties` keys) runs on RE2, linear in the input, so no pattern can block
 *   the event loop; a pattern RE2 can't compile (backreferences, lookaround) is refused naming its field, never run
 *   on the backtracking engine instead;
 * - each schema gets its own Ajv instance, so a `$id` it declares is seen by no other schema and its `$ref`s reach
 *   nothing outside itself (Ajv's registry is per instance, and there is no loader for remote refs).
 * Callers keep their own bounded caches of compiled schemas.
 */
export type SchemaCheck = (value: unknown) => { ok: true } | { ok: false; reason: string };

export class UntrustedSchemaError extends Error {
  /** field: the regex's path in the schema (a pattern RE2 refused), or undefined (the schema as a whole is unusable). */
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'UntrustedSchemaError';
  }
}

/** Ajv's regex engine: RE2, with JavaScript syntax translated. toString is Ajv's cache key for a pattern. */
function re2Engine(pattern: string): { test(s: string): boolean; toString(): string } {
  const re = RE2JS.compile(RE2JS.translateRegExp(pattern));
  return { test: (s: string) => re.test(s), toString: () => `re2:${pattern}` };
}
re2Engine.code = 're2js';

// strict: false — a schema written by a model or a server may carry keywords Ajv does not know (title, examples, …);
// they are ignored, while every validation keyword it does know is enforced. `format` is an annotation only: Ajv here
// has no format validators, and asserting them would mean running more regexes.
const OPTIONS = { strict: false, allErrors: false, validateFormats: false, code: { regExp: re2Engine } } as const;

// Checking a schema against the meta-schema needs the meta-schema compiled (tens of ms): done once, on an instance
// that only ever validates schemas as data (validateSchema registers nothing, so no user's $id lands in it).
const g = globalThis as unknown as { __ensembleMetaSchemaAjv?: Ajv };
const metaChecker = () => (g.__ensembleMetaSchemaAjv ??= new Ajv(OPTIONS));

/** A fresh instance per schema (its own $id registry), compiling without the meta-schema check (done above). */
const newAjv = () => new Ajv({ ...OPTIONS, validateSchema: false });

/** The schema's check, or UntrustedSchemaError: every regex RE2 can run, it is a JSON Schema, and it compiles. */
export function compileUntrustedSchema(schema: Record<string, unknown>): SchemaCheck {
  for (const site of regexSites(schema)) {
    try {
      re2Engine(site.pattern);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new UntrustedSchemaError(`this regular expression can't run in linear time (backreferences and lookaround are not supported): ${why}`, site.field);
    }
  }
  const meta = metaChecker();
  if (!meta.validateSchema(schema)) throw new UntrustedSchemaError(meta.errorsText(meta.errors));
  const ajv = newAjv();
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (err) {
    throw new UntrustedSchemaError(err instanceof Error ? err.message : String(err));
  }
  return (value) => (validate(value) ? { ok: true } : { ok: false, reason: ajv.errorsText(validate.errors) });
}

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
 * The schema as a tool carries it to the model (checked there by LangChain's own validator, which runs `pattern` and
 * `format` with the backtracking engine): regex keywords moved into the description, `additionalProperties` beside a
 * removed `patternProperties` dropped (it would refuse what those patterns allow). The full check is
 * compileUntrustedSchema's.
 */
export function withoutRegexKeywords(node: unknown): unknown {
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
