import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { zipChunks, type ZipEntry } from '@/server/files/zip-stream';

async function* bytes(text: string) {
  yield new TextEncoder().encode(text);
}

async function archive(entries: ZipEntry[]): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const chunk of zipChunks(entries)) parts.push(chunk);
  return Buffer.concat(parts);
}

/** The central directory's records (APPNOTE 4.3.12): who made each entry, its flags, attributes and name. */
function centralRecords(zip: Buffer) {
  const records: Array<{ host: number; flags: number; mode: number; name: string }> = [];
  for (let at = zip.indexOf('PK\x01\x02'); at >= 0; at = zip.indexOf('PK\x01\x02', at + 4)) {
    const nameLength = zip.readUInt16LE(at + 28);
    records.push({
      host: zip.readUInt8(at + 5),
      flags: zip.readUInt16LE(at + 8),
      mode: zip.readUInt32LE(at + 38) >>> 16,
      name: zip.subarray(at + 46, at + 46 + nameLength).toString('utf8'),
    });
  }
  return records;
}

describe('zipChunks', () => {
  it('marks every entry as a Unix regular file (0644) with a UTF-8 name, so unzip keeps CJK and emoji names', async () => {
    const zip = await archive([
      { name: 'team.md', chunks: bytes('# Team\n'), compress: true },
      { name: 'files/報告 🚀.md', chunks: bytes('# 報告\n'), compress: false },
    ]);
    expect(centralRecords(zip)).toEqual([
      { host: 3, flags: expect.any(Number), mode: 0o100644, name: 'team.md' },
      { host: 3, flags: expect.any(Number), mode: 0o100644, name: 'files/報告 🚀.md' },
    ]);
    // The UTF-8 flag (bit 11) on the name that needs it.
    expect(centralRecords(zip)[1]!.flags & 0x800).toBe(0x800);
    const entries = unzipSync(new Uint8Array(zip));
    expect(new TextDecoder().decode(entries['files/報告 🚀.md'])).toBe('# 報告\n');
  });
});
