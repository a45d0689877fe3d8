import 'server-only';
import type { FileVersionRow } from '@/server/db/schema';
import { versionBytes } from './files';

/** Text cut to at most maxChars characters (code points kept whole); truncated when anything was cut. */
export function cutText(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  let end = maxChars;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--; // never split a surrogate pair
  return { text: text.slice(0, end), truncated: true };
}

/** The first maxChars characters of a text version, reading no more than it needs. */
export async function textHead(version: FileVersionRow, maxChars: number): Promise<{ text: string; truncated: boolean }> {
  // UTF-8 takes at most 4 bytes per UTF-16 unit pair; reading 4 bytes a character is always enough.
  const end = Math.min(Number(version.size), maxChars * 4);
  const text = await decodeAll(versionBytes(version, { start: 0, end }));
  const cut = cutText(text, maxChars);
  return { text: cut.text, truncated: cut.truncated || end < Number(version.size) };
}

/** Decode chunks as UTF-8 (a partial character at a range's edge becomes U+FFFD). */
export async function decodeAll(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of chunks) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/** Lines of a text stream, one at a time, without holding more than a chunk and the current line (cut at maxLineChars). */
export async function* textLines(chunks: AsyncIterable<Uint8Array>, maxLineChars: number): AsyncIterable<{ line: string; cut: boolean }> {
  const decoder = new TextDecoder();
  let carry = '';
  let cut = false;
  const take = function* (text: string, final: boolean) {
    carry += text;
    let nl: number;
    while ((nl = carry.indexOf('\n')) >= 0) {
      const line = carry.slice(0, nl).replace(/\r$/, '');
      carry = carry.slice(nl + 1);
      yield { line, cut };
      cut = false;
    }
    if (carry.length > maxLineChars) {
      carry = carry.slice(0, maxLineChars);
      cut = true;
    }
    if (final && carry.length) yield { line: carry, cut };
  };
  for await (const chunk of chunks) yield* take(decoder.decode(chunk, { stream: true }), false);
  yield* take(decoder.decode(), true);
}
