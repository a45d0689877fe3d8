import { mcpSourceOf, type ApprovalRequest } from '@/components/approvals/approval';
import { ApiError } from '@/lib/api-client';
import { LIMITS } from '@/lib/limits';
import { jsonHasLoneSurrogate } from '@/lib/text';
import { jsonBytes } from '@/lib/text-bounds';
import type { ApiWaiting } from '@/lib/types/team';

const n = (v: number) => v.toLocaleString('en-US');

export type ParsedJson = { ok: true; value: unknown; bytes: number } | { ok: false; error: string };

/** An interrupt response typed as JSON: it must parse, stay within 8,000 UTF-8 bytes and hold no lone surrogate. */
export function parseInterruptResponse(text: string): ParsedJson {
  if (text.trim() === '') return { ok: false, error: 'Enter a JSON value' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `Not valid JSON: ${e instanceof Error ? e.message : 'parse error'}` };
  }
  if (jsonHasLoneSurrogate(value)) return { ok: false, error: 'The JSON contains an invalid character' };
  const bytes = jsonBytes(value);
  const max = LIMITS.interruptResponse.maxBytes;
  if (bytes > max) return { ok: false, error: `The JSON is too large: at most ${n(max)} bytes (now ${n(bytes)})` };
  return { ok: true, value, bytes };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The tool call a waiting job asks the person to approve, read field by field from its interrupt payload (it
 * arrives as unknown JSON); null for a clarification or any other interrupt, which keeps the JSON response.
 */
export function approvalRequest(waiting: ApiWaiting): ApprovalRequest | null {
  if (waiting.type !== 'interrupt' || !isRecord(waiting.payload)) return null;
  const { type, tool, args, mcp } = waiting.payload;
  const source = mcpSourceOf(mcp);
  return type === 'approval' && typeof tool === 'string' ? { tool, args, ...(source ? { mcp: source } : {}) } : null;
}

/** What the JSON response must look like, when the server checks its shape (an approval it could not show as one). */
export function responseHint(waiting: ApiWaiting): string | null {
  if (waiting.type === 'interrupt' && isRecord(waiting.payload) && waiting.payload.type === 'approval') {
    return 'An approval takes {"approved": true} or {"approved": false, "note": "why"}.';
  }
  return null;
}

/**
 * Why the server refused an answer, naming the fields it is about: `response.approved` is shown as
 * "approved: Must be true or false", so a hand-written JSON response says which field to fix.
 */
export function respondErrorMessage(err: unknown): string {
  if (!(err instanceof ApiError)) return 'Sending the answer failed; try again.';
  const fields = Object.entries(err.fields);
  if (!fields.length) return err.message;
  return fields.map(([key, message]) => (key.startsWith('response.') ? `${key.slice('response.'.length)}: ${message}` : message)).join('; ');
}
