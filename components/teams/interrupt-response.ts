import { LIMITS } from '@/lib/limits';
import { charCount, hasLoneSurrogate, jsonHasLoneSurrogate, utf8Bytes } from '@/lib/text';

export type TextBound = { readonly maxChars: number; readonly maxBytes: number };

export type TextMeasure = { chars: number; bytes: number; overChars: boolean; overBytes: boolean; over: boolean };

export function measureText(text: string, bound: TextBound): TextMeasure {
  const chars = charCount(text);
  const bytes = utf8Bytes(text);
  const overChars = chars > bound.maxChars;
  const overBytes = bytes > bound.maxBytes;
  return { chars, bytes, overChars, overBytes, over: overChars || overBytes };
}

const n = (v: number) => v.toLocaleString('en-US');

/** "12 / 4,000 characters · 12 / 8,000 bytes" */
export function counterLabel(m: TextMeasure, bound: TextBound): string {
  return `${n(m.chars)} / ${n(bound.maxChars)} characters · ${n(m.bytes)} / ${n(bound.maxBytes)} bytes`;
}

/**
 * Why a text can't be sent as it is, or null when it can. `what` names the text in the message
 * ("Message", "Answer", "Name").
 */
export function boundedTextProblem(text: string, bound: TextBound, what: string, required = true): string | null {
  if (required && text.trim() === '') return `${what} is required`;
  if (hasLoneSurrogate(text)) return `${what} contains an invalid character`;
  const m = measureText(text, bound);
  if (m.over) {
    return `${what} is too long: at most ${n(bound.maxChars)} characters and ${n(bound.maxBytes)} bytes (now ${n(m.chars)} characters, ${n(m.bytes)} bytes)`;
  }
  return null;
}

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
  const bytes = utf8Bytes(JSON.stringify(value));
  const max = LIMITS.interruptResponse.maxBytes;
  if (bytes > max) return { ok: false, error: `The JSON is too large: at most ${n(max)} bytes (now ${n(bytes)})` };
  return { ok: true, value, bytes };
}
