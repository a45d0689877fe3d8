import 'server-only';

/** Bytes of a file's start that content sniffing reads (file-type's own need). */
export const SNIFF_BYTES = 4_100;

export const TEXT_MEDIA_TYPE = 'text/plain';
export const BINARY_MEDIA_TYPE = 'application/octet-stream';

/**
 * Whether a stream of bytes is UTF-8 text, checked chunk by chunk as it passes (never held): valid UTF-8 without NUL.
 * A file's name never decides its type.
 */
export class TextCheck {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private ok = true;

  push(chunk: Uint8Array): void {
    if (!this.ok) return;
    if (chunk.includes(0)) {
      this.ok = false;
      return;
    }
    try {
      this.decoder.decode(chunk, { stream: true });
    } catch {
      this.ok = false;
    }
  }

  /** True when every byte pushed was text (an empty file is text). */
  end(): boolean {
    if (!this.ok) return false;
    try {
      this.decoder.decode();
      return true;
    } catch {
      return false;
    }
  }
}

/** The media type of content by its bytes: a signature file-type knows, else text/plain for UTF-8 text, else binary. */
export async function sniffMediaType(head: Uint8Array, isText: boolean): Promise<string> {
  // Loaded on first use with import(): file-type is ESM only, and the scripts' CommonJS loader (tsx) can't require it.
  const { fileTypeFromBuffer } = await import('file-type');
  // A head that starts like a format and then stops (a cut-off or corrupt file) makes file-type's parser throw
  // (End-Of-Stream) instead of answering: such bytes are no format it can name, so the fallback types them.
  const found = head.byteLength ? await fileTypeFromBuffer(head).catch(() => undefined) : undefined;
  if (found) return found.mime;
  return isText ? TEXT_MEDIA_TYPE : BINARY_MEDIA_TYPE;
}
