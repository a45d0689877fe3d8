import 'server-only';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';

/**
 * Every entry says it was made on Unix (APPNOTE 4.4.2.2: host 3) as a regular file, mode 0644. fflate's default
 * host is MS-DOS, and Info-ZIP's unzip (Debian's included) reads the names of a DOS-made entry in the DOS code page
 * despite their UTF-8 flag: `files/報告 🚀.md` came out as mojibake. On a Unix host the mode must be set too, or the
 * file would be extracted with none.
 */
const UNIX_HOST = 3;
const REGULAR_FILE_0644 = (0o100644 << 16) >>> 0;

/** One member of a streamed ZIP: its path inside the archive and its bytes, as chunks. */
export type ZipEntry = { name: string; chunks: AsyncIterable<Uint8Array>; compress: boolean };

/**
 * A ZIP archive as chunks (fflate), made while the entries are read: each input chunk is compressed (or stored) and
 * handed on before the next is read, so memory holds a chunk, never an entry or the archive. Already-compressed
 * content (images, PDFs, DOCX) is stored as is: compressing it again costs time and saves nothing.
 */
export async function* zipChunks(entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>): AsyncGenerator<Uint8Array, void, undefined> {
  const out: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((err, data) => {
    if (err) failure = err;
    else out.push(data);
  });
  const drain = function* () {
    if (failure) throw failure;
    while (out.length) yield out.shift()!;
  };
  for await (const entry of entries) {
    const file = entry.compress ? new ZipDeflate(entry.name, { level: 6 }) : new ZipPassThrough(entry.name);
    file.os = UNIX_HOST;
    file.attrs = REGULAR_FILE_0644;
    zip.add(file);
    for await (const chunk of entry.chunks) {
      file.push(chunk);
      yield* drain();
    }
    file.push(new Uint8Array(0), true);
    yield* drain();
  }
  zip.end();
  yield* drain();
}
