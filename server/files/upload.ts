import 'server-only';
import type { ApiFile, FileScope } from '@/lib/types/file';
import { fileTooLarge } from './errors';
import { checkRoomFor, commitContent, fileLimits, fileNameOrThrow, type FileLimits } from './files';
import { ingest, requestChunks } from './ingest';
import { resolveScope } from './scope';
import { fileView } from './views';

/**
 * A person's upload: the raw body streamed to the store (never buffered whole), a new file in the scope under the
 * normalized name (a duplicate gets " (2)"). The scope and the name are checked, and a declared size past a limit
 * refused, before a byte is read.
 */
export async function uploadFile(
  ownerId: string,
  scope: FileScope,
  rawName: string | null,
  body: ReadableStream<Uint8Array> | null,
  declaredBytes: number | null,
  limits: FileLimits = fileLimits(),
): Promise<ApiFile> {
  try {
    const ref = await resolveScope(ownerId, scope);
    const name = fileNameOrThrow(rawName);
    if (declaredBytes !== null && declaredBytes > limits.maxBytes) throw fileTooLarge(limits.maxBytes);
    await checkRoomFor(ownerId, declaredBytes, limits);
    const ingested = await ingest(requestChunks(body), limits.maxBytes);
    const { file, version } = await commitContent(ref, { kind: 'new', name }, ingested, { kind: 'person' }, null, limits);
    return fileView(file, version);
  } catch (err) {
    // A refusal before (or while) reading: the rest of the body is never read.
    await body?.cancel().catch(() => undefined);
    throw err;
  }
}
