/** Rules for answering an approval interrupt (in a chat or on a team's job card). */
import { LIMITS } from '@/lib/limits';
import type { ApprovalDecision } from '@/lib/types/conversation';
import { hasLoneSurrogate, jsonBytes, measureText } from '@/lib/text-bounds';

export type ApprovalValue = ApprovalDecision;

/** The call waiting for approval, as the person sees it: the tool's name and its arguments (untrusted: a model chose them). */
export type ApprovalRequest = { tool: string; args: unknown; mcp?: McpSource };

/** An MCP tool's server and own name, which the server puts beside the model's name for it. */
export type McpSource = { server: string; tool: string };

/** The MCP source of an approval interrupt's payload, read field by field (it arrives as unknown JSON). */
export function mcpSourceOf(value: unknown): McpSource | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { server, tool } = value as Record<string, unknown>;
  return typeof server === 'string' && typeof tool === 'string' ? { server, tool } : undefined;
}

/** Build the resume value; an empty note is left out. */
export function approvalValue(approved: boolean, note: string): ApprovalValue {
  const trimmed = note.trim();
  return trimmed ? { approved, note: trimmed } : { approved };
}

/** Why this note cannot be sent, or null. The note is bounded like a clarification answer and the whole value like any interrupt response. */
export function noteError(note: string): string | null {
  const trimmed = note.trim();
  const measure = measureText(trimmed, LIMITS.answer);
  if (measure.overChars) {
    return `Note is too long: ${measure.chars.toLocaleString('en-US')} characters, the limit is ${LIMITS.answer.maxChars.toLocaleString('en-US')}.`;
  }
  if (measure.overBytes) {
    return `Note is too long: the limit is ${LIMITS.answer.maxBytes.toLocaleString('en-US')} bytes.`;
  }
  if (hasLoneSurrogate(trimmed)) return 'Note contains an invalid character; remove it and try again.';
  if (jsonBytes(approvalValue(false, trimmed)) > LIMITS.interruptResponse.maxBytes) {
    return 'Note is too long to send.';
  }
  return null;
}
