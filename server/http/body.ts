import 'server-only';
import { LIMITS } from '@/lib/limits';
import { tooLarge } from './errors';

/**
 * Read a request body into memory, never more than maxBytes + one chunk: a declared Content-Length over the cap
 * answers 413 before anything is read, and a body without one (chunked) is counted while it streams and the
 * reader is cancelled as soon as the count passes the cap. req.arrayBuffer() would buffer all of it first.
 */
export async function readBodyBytes(
  req: Request,
  maxBytes: number = LIMITS.requestBodyBytes,
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(req.headers.get('content-length') ?? '0');
  if (declared > maxBytes) {
    await req.body?.cancel().catch(() => undefined); // the excess is never read; a failed cancel changes nothing
    throw tooLarge(maxBytes);
  }
  if (!req.body) return new Uint8Array(new ArrayBuffer(0));
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(new ArrayBuffer(total));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * The same request with its body read through readBodyBytes (413 past the cap), for handlers that read the body
 * themselves (next-auth). Within the cap the copy carries exactly the bytes the client sent.
 */
export async function withBoundedBody<R extends Request>(
  req: R,
  rebuild: (url: string, init: RequestInit) => R,
  maxBytes: number = LIMITS.requestBodyBytes,
): Promise<R> {
  if (req.method === 'GET' || req.method === 'HEAD') return req;
  const bytes = await readBodyBytes(req, maxBytes);
  const headers = new Headers(req.headers);
  headers.delete('transfer-encoding');
  headers.set('content-length', String(bytes.byteLength));
  return rebuild(req.url, { method: req.method, headers, body: bytes, signal: req.signal });
}
