import 'server-only';
import type { FileRow, FileVersionRow } from '@/server/db/schema';
import { pullStream } from '@/server/http/pull-stream';
import { versionBytes } from './files';

/** The only types ever served inline (an image preview), always with nosniff: no script can run from them. */
export const INLINE_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
/** Types a browser could run or render as a document: never served as themselves from the app's origin. */
const ACTIVE = /html|xml|svg|javascript|ecmascript|x-shockwave|xhtml/i;

/** The Content-Type a download carries: text as text/plain, anything that could be active as octet-stream. */
export function safeContentType(mediaType: string, inline: boolean): string {
  if (inline && INLINE_IMAGE_TYPES.has(mediaType)) return mediaType;
  if (mediaType === 'text/plain') return 'text/plain; charset=utf-8';
  if (ACTIVE.test(mediaType)) return 'application/octet-stream';
  return mediaType;
}

/** RFC 6266 / 5987: an ASCII fallback name and the exact UTF-8 name. */
export function contentDisposition(kind: 'attachment' | 'inline', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * A version's bytes as a response, streamed chunk by chunk as the client reads (a slow reader holds back the reading,
 * not memory). An attachment unless `inline` was asked for a png/jpeg/gif/webp; nosniff and a sandboxing CSP always.
 */
export function contentResponse(file: FileRow, version: FileVersionRow, inline: boolean): Response {
  const asInline = inline && INLINE_IMAGE_TYPES.has(version.mediaType);
  const chunks = versionBytes(version)[Symbol.asyncIterator]();
  return new Response(pullStream(chunks), {
    headers: {
      'content-type': safeContentType(version.mediaType, asInline),
      'content-length': String(version.size),
      'content-disposition': contentDisposition(asInline ? 'inline' : 'attachment', file.name),
      'x-content-type-options': 'nosniff',
      'content-security-policy': "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'",
      'cross-origin-resource-policy': 'same-origin',
      'cache-control': 'private, no-cache',
    },
  });
}
