import 'server-only';
import { LIMITS } from '@/lib/limits';
import type { McpCallResult, McpContentPart } from './types';

/**
 * A tools/call result as a run receives it (ADR 054): text kept up to LIMITS.mcp.result.textChars in all (text parts
 * and embedded resources' text together) and at most LIMITS.mcp.result.parts parts, the rest cut and the result marked
 * truncated; images and binary resources become typed references (type, MIME type, size), their bytes dropped, so
 * nothing a server sent is ever rendered as HTML or handed on as data to decode. Audio, which the contract has no part
 * for, becomes a one-line text reference.
 */

type RawContent = { type: string; [key: string]: unknown };
type RawResult = { content?: RawContent[]; isError?: boolean; structuredContent?: unknown };

const MIME = /^[A-Za-z0-9][\w.+-]{0,126}\/[\w.+-]{1,127}$/;
const mime = (v: unknown): string => (typeof v === 'string' && MIME.test(v) ? v : 'application/octet-stream');

/** Cut to at most `max` UTF-16 units without splitting a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/** Bytes a base64 text decodes to, without decoding it. */
const base64Bytes = (data: unknown): number => {
  if (typeof data !== 'string') return 0;
  const body = data.replace(/=+$/, '');
  return Math.floor((body.length * 3) / 4);
};

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function toCallResult(raw: RawResult): McpCallResult {
  const limits = LIMITS.mcp.result;
  let budget = limits.textChars;
  let truncated = false;
  const parts: McpContentPart[] = [];
  const takeText = (text: string): string => {
    const kept = cutText(text, budget);
    if (kept.length < text.length) truncated = true;
    budget -= kept.length;
    return kept;
  };
  const content = Array.isArray(raw.content) ? raw.content : [];
  for (const item of content) {
    if (parts.length >= limits.parts) {
      truncated = true;
      break;
    }
    if (!item || typeof item !== 'object') continue;
    if (item.type === 'text') {
      parts.push({ type: 'text', text: takeText(str(item.text) ?? '') });
    } else if (item.type === 'image') {
      parts.push({ type: 'image', mimeType: mime(item.mimeType), byteLength: base64Bytes(item.data) });
    } else if (item.type === 'audio') {
      parts.push({ type: 'text', text: takeText(`[audio: ${mime(item.mimeType)}, ${base64Bytes(item.data)} bytes, not shown]`) });
    } else if (item.type === 'resource' && item.resource && typeof item.resource === 'object') {
      const r = item.resource as Record<string, unknown>;
      const part: McpContentPart & { type: 'resource' } = { type: 'resource', uri: cutText(str(r.uri) ?? '', limits.uriChars) };
      if (r.mimeType !== undefined) part.mimeType = mime(r.mimeType);
      if (typeof r.text === 'string') part.text = takeText(r.text);
      parts.push(part);
    } else if (item.type === 'resource_link') {
      const part: McpContentPart & { type: 'resource' } = { type: 'resource', uri: cutText(str(item.uri) ?? '', limits.uriChars) };
      if (item.mimeType !== undefined) part.mimeType = mime(item.mimeType);
      if (typeof item.name === 'string') part.name = cutText(item.name, 200);
      parts.push(part);
    }
  }
  const result: McpCallResult = { isError: raw.isError === true, parts, truncated };
  if (raw.structuredContent !== undefined) {
    // Kept only whole: a cut JSON document would be a different document.
    const size = JSON.stringify(raw.structuredContent)?.length ?? 0;
    if (size <= budget) result.structuredContent = raw.structuredContent;
    else result.truncated = true;
  }
  return result;
}
