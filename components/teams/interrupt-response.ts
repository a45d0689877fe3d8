import { LIMITS } from '@/lib/limits';
import { jsonHasLoneSurrogate } from '@/lib/text';
import { jsonBytes } from '@/lib/text-bounds';

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
