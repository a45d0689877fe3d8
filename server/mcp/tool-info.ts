import 'server-only';
import crypto from 'node:crypto';
import { LIMITS } from '@/lib/limits';
import type { McpToolInfo } from './types';

/** A tool name the MCP spec allows (1–128 of A–Z a–z 0–9 _ - .); others are left out of discovery. */
export const MCP_SPEC_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** JSON with object keys sorted at every level: equal documents give equal text, whatever order a server sent. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function schemaHash(tool: Pick<McpToolInfo, 'name' | 'description' | 'inputSchema'>): string {
  return crypto
    .createHash('sha256')
    .update(canonicalJson({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }))
    .digest('hex');
}

type RawTool = { name: string; description?: string; inputSchema: Record<string, unknown>; annotations?: Record<string, unknown> };

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

function annotationsOf(raw: Record<string, unknown> | undefined): McpToolInfo['annotations'] {
  if (!raw) return undefined;
  const out: NonNullable<McpToolInfo['annotations']> = {};
  if (typeof raw.title === 'string') out.title = [...raw.title].slice(0, 200).join('');
  for (const hint of HINTS) if (typeof raw[hint] === 'boolean') out[hint] = raw[hint] as boolean;
  return Object.keys(out).length ? out : undefined;
}

/**
 * A listed tool as the product keeps it, or null when it is left out: a name the spec forbids, or an input schema that
 * is not an object schema or is larger than LIMITS.mcp.tools.schemaBytes. The description is cut to its limit (the
 * hash is of what is kept, so a cut description still changes the hash when it changes).
 */
export function toToolInfo(raw: RawTool): McpToolInfo | null {
  if (typeof raw.name !== 'string' || !MCP_SPEC_TOOL_NAME.test(raw.name)) return null;
  const schema = raw.inputSchema;
  if (!schema || typeof schema !== 'object' || Array.isArray(schema) || schema.type !== 'object') return null;
  if (Buffer.byteLength(JSON.stringify(schema)) > LIMITS.mcp.tools.schemaBytes) return null;
  const description = [...(typeof raw.description === 'string' ? raw.description : '')].slice(0, LIMITS.mcp.tools.descriptionChars).join('');
  const info: McpToolInfo = { name: raw.name, description, inputSchema: schema, schemaHash: '' };
  info.schemaHash = schemaHash(info);
  const annotations = annotationsOf(raw.annotations);
  if (annotations) info.annotations = annotations;
  return info;
}
