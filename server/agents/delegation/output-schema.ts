import 'server-only';
import { compileUntrustedSchema, UntrustedSchemaError, withoutRegexKeywords, type SchemaCheck } from '@/server/trust/untrusted-json-schema';
import { TaskRefusal } from './spec';

/**
 * An output schema (a model wrote it: untrusted) compiled for validation (docs/decisions/047) by
 * server/trust/untrusted-json-schema.ts — RE2 for every pattern, one Ajv per schema — with its root required to be an
 * object, its refusals phrased for the task, and compiled schemas kept in a small LRU, so the cache is bounded.
 */
export type OutputSchemaCheck = SchemaCheck;

type Compiled = { check: OutputSchemaCheck; modelSchema: Record<string, unknown> };

export const OUTPUT_SCHEMA_CACHE_MAX = 64;
const cache = new Map<string, Compiled>();

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
  let check: SchemaCheck;
  try {
    check = compileUntrustedSchema(schema);
  } catch (err) {
    if (!(err instanceof UntrustedSchemaError)) throw err;
    if (err.field) {
      throw new TaskRefusal('invalid_output_schema', `output_schema.${err.field}: ${err.message}`.slice(0, 500), { field: `output_schema.${err.field}` });
    }
    throw new TaskRefusal('invalid_output_schema', `output_schema is not a usable JSON Schema: ${err.message}`.slice(0, 500));
  }
  const compiled: Compiled = { check, modelSchema: withoutRegexKeywords(schema) as Record<string, unknown> };
  cache.set(key, compiled);
  if (cache.size > OUTPUT_SCHEMA_CACHE_MAX) cache.delete(cache.keys().next().value!);
  return compiled;
}

/** How many compiled schemas are kept (tests: the cache is bounded). */
export const outputSchemaCacheSize = () => cache.size;
