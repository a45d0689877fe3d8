import 'server-only';
import { LIMITS } from '@/lib/limits';
import { compileUntrustedSchema, UntrustedSchemaError, type SchemaCheck } from '@/server/trust/untrusted-json-schema';
import { McpCallError, type McpToolInfo } from './types';

/**
 * A call's arguments checked against the tool's input schema before anything is sent (ADR 054). The schema is the
 * server's (untrusted): compiled by server/trust/untrusted-json-schema.ts (RE2 patterns, its own Ajv), cached by
 * schema hash in a bounded LRU; a schema that can't be compiled makes every call of that tool refused, naming why.
 */
const CACHE_MAX = 512;
const cache = new Map<string, SchemaCheck | UntrustedSchemaError>();

function checkFor(tool: McpToolInfo): SchemaCheck | UntrustedSchemaError {
  const hit = cache.get(tool.schemaHash);
  if (hit) {
    cache.delete(tool.schemaHash);
    cache.set(tool.schemaHash, hit);
    return hit;
  }
  let compiled: SchemaCheck | UntrustedSchemaError;
  try {
    compiled = compileUntrustedSchema(tool.inputSchema);
  } catch (err) {
    if (!(err instanceof UntrustedSchemaError)) throw err;
    compiled = err;
  }
  cache.set(tool.schemaHash, compiled);
  if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
  return compiled;
}

export function validateArguments(tool: McpToolInfo, args: unknown): Record<string, unknown> {
  const value = args === undefined || args === null ? {} : args;
  if (typeof value !== 'object' || Array.isArray(value)) throw new McpCallError(`Arguments for ${tool.name} must be an object`, 'invalid_arguments');
  const size = Buffer.byteLength(JSON.stringify(value));
  if (size > LIMITS.mcp.argumentsBytes) {
    throw new McpCallError(`Arguments for ${tool.name} are ${size} bytes; at most ${LIMITS.mcp.argumentsBytes} are sent`, 'invalid_arguments');
  }
  const check = checkFor(tool);
  if (check instanceof UntrustedSchemaError) {
    throw new McpCallError(`The input schema of ${tool.name} can't be used${check.field ? ` (${check.field})` : ''}: ${check.message}`.slice(0, 500), 'invalid_arguments');
  }
  const verdict = check(value);
  if (!verdict.ok) throw new McpCallError(`Arguments for ${tool.name} don't match its input schema: ${verdict.reason}`.slice(0, 500), 'invalid_arguments');
  return value as Record<string, unknown>;
}
