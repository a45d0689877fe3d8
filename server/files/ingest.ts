import 'server-only';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '@/server/db/paths';
import { badRequest } from '@/server/http/errors';
import { fileTooLarge } from './errors';
import { paceScavenges } from './scavenge-pacer';
import { stagingDir } from './local-store';
import { SNIFF_BYTES, TextCheck, sniffMediaType } from './sniff';

/** Bytes written to a temporary file, fsynced, hashed and typed: ready for the store's keep. */
export type Ingested = { tempPath: string; sha256: string; size: number; mediaType: string };

/**
 * Stream bytes into a temporary file under DATA_DIR/files/tmp while hashing (SHA-256), counting (fileTooLarge past
 * maxBytes: the stream is cancelled and the file removed) and checking for text; only the first SNIFF_BYTES are kept
 * in memory for content sniffing. Each chunk is written before the next is read, so memory holds a chunk, not the file,
 * and every few MiB the chunks already written are collected (scavenge-pacer.ts), so dead ones don't pile up either.
 * On any failure (a client that disconnects midway included) the temporary file is removed and nothing else exists.
 */
export async function ingest(source: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Ingested> {
  const dir = stagingDir();
  await fs.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const tempPath = path.join(dir, `${randomUUID()}.part`);
  const handle = await fs.open(tempPath, 'wx', PRIVATE_FILE_MODE);
  const hash = createHash('sha256');
  const text = new TextCheck();
  const head = new Uint8Array(SNIFF_BYTES);
  let headBytes = 0;
  let size = 0;
  try {
    try {
      for await (const chunk of source) {
        size += chunk.byteLength;
        if (size > maxBytes) throw fileTooLarge(maxBytes);
        if (headBytes < SNIFF_BYTES) {
          const take = chunk.subarray(0, SNIFF_BYTES - headBytes);
          head.set(take, headBytes);
          headBytes += take.byteLength;
        }
        hash.update(chunk);
        text.push(chunk);
        let written = 0;
        while (written < chunk.byteLength) written += (await handle.write(chunk, written)).bytesWritten;
        paceScavenges(chunk.byteLength); // this chunk is done with: let the collector free it and the ones before
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    const mediaType = await sniffMediaType(head.subarray(0, headBytes), text.end());
    return { tempPath, sha256: hash.digest('hex'), size, mediaType };
  } catch (err) {
    await fs.rm(tempPath, { force: true });
    throw err;
  }
}

/** Remove a temporary file the store did not take (a refused upload after ingest). */
export async function discard(ingested: Ingested): Promise<void> {
  await fs.rm(ingested.tempPath, { force: true });
}

/** A Request's body as chunks; an absent body is empty. Cancelled when the consumer stops early. */
export async function* requestChunks(body: ReadableStream<Uint8Array> | null): AsyncIterable<Uint8Array> {
  if (!body) return;
  const reader = body.getReader();
  try {
    for (;;) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch {
        throw badRequest('upload_incomplete', 'The upload ended before all of its bytes arrived; nothing was stored');
      }
      if (step.done) return;
      yield step.value;
    }
  } finally {
    await reader.cancel().catch(() => undefined); // a body already finished or failed has nothing left to cancel
  }
}
