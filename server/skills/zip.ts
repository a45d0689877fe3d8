import 'server-only';
import { Inflate } from 'fflate';
import { LIMITS } from '@/lib/limits';
import { AppError } from '@/server/http/errors';

export type ZipEntry = { path: string; bytes: Uint8Array };

const refuse = (message: string) => new AppError(422, 'invalid_skill_zip', message, { zip: message });

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const UNIX = 3;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

type CentralEntry = { name: string; method: number; flags: number; compressed: number; size: number; local: number; dir: boolean };

/**
 * Read a skill pack's ZIP (already read whole within LIMITS.skills.zipBytes) from its central directory, refusing
 * before any byte is inflated: ZIP64 and encrypted entries, more than LIMITS.skills.entries entries, symlinks and any
 * other non-regular file (a Unix mode in the external attributes), methods other than stored and deflate, and an
 * entry declaring more than the per-file bound. Inflating then counts every byte it makes, per file and in all, and
 * stops at the bound (a zip bomb's declared sizes lie; its inflated bytes can't), in small steps so memory holds at
 * most one step's output past the bound. Paths are checked by `skillPath` (no traversal, absolute or drive paths).
 */
export function readZip(zip: Uint8Array): ZipEntry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const entries = centralDirectory(zip, view);
  const out: ZipEntry[] = [];
  let total = 0;
  for (const entry of entries) {
    if (entry.dir) continue;
    if (view.getUint32(entry.local, true) !== LOCAL) throw refuse(`"${entry.name}": its local header is missing`);
    const start = entry.local + 30 + view.getUint16(entry.local + 26, true) + view.getUint16(entry.local + 28, true);
    if (start + entry.compressed > zip.byteLength) throw refuse(`"${entry.name}": its data runs past the end of the archive`);
    const data = zip.subarray(start, start + entry.compressed);
    const bytes = entry.method === 0 ? data.slice() : inflateBounded(data, entry.name, LIMITS.skills.inflatedBytes - total);
    total += bytes.byteLength;
    if (total > LIMITS.skills.inflatedBytes) throw refuse(`The archive inflates to more than ${LIMITS.skills.inflatedBytes} bytes`);
    if (bytes.byteLength > LIMITS.skills.fileBytes && entry.name !== 'SKILL.md') throw refuse(`"${entry.name}" is larger than ${LIMITS.skills.fileBytes} bytes`);
    out.push({ path: entry.name, bytes });
  }
  return out;
}

function centralDirectory(zip: Uint8Array, view: DataView): CentralEntry[] {
  let eocd = -1;
  for (let i = zip.byteLength - 22; i >= Math.max(0, zip.byteLength - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw refuse('Not a ZIP archive');
  const count = view.getUint16(eocd + 10, true);
  const offset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || offset === 0xffffffff) throw refuse('ZIP64 archives are not accepted (a skill pack is small)');
  if (count > LIMITS.skills.entries) throw refuse(`The archive has ${count} entries; at most ${LIMITS.skills.entries}`);
  const entries: CentralEntry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.byteLength || view.getUint32(at, true) !== CENTRAL) throw refuse('The archive\'s directory is damaged');
    const madeBy = view.getUint16(at + 4, true);
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const compressed = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extra = view.getUint16(at + 30, true);
    const comment = view.getUint16(at + 32, true);
    const external = view.getUint32(at + 38, true);
    const local = view.getUint32(at + 42, true);
    if (at + 46 + nameLength > zip.byteLength) throw refuse('The archive\'s directory is damaged');
    const raw = zip.subarray(at + 46, at + 46 + nameLength);
    // Bit 11: the name is UTF-8; older tools wrote CP437, which agrees with it on ASCII — anything else is refused.
    const name = new TextDecoder('utf-8', { fatal: false }).decode(raw);
    at += 46 + nameLength + extra + comment;
    const mode = madeBy >> 8 === UNIX ? external >>> 16 : 0;
    const type = mode & S_IFMT;
    const dir = name.endsWith('/') || type === S_IFDIR;
    if (type && type !== S_IFREG && type !== S_IFDIR) throw refuse(`"${name.slice(0, 100)}" is a link or special file; only regular files are accepted`);
    if (flags & 1) throw refuse(`"${name.slice(0, 100)}" is encrypted`);
    if (!dir && method !== 0 && method !== 8) throw refuse(`"${name.slice(0, 100)}" uses a compression method other than deflate`);
    if (!dir && size > Math.max(LIMITS.skills.fileBytes, LIMITS.skills.body.maxBytes)) throw refuse(`"${name.slice(0, 100)}" is larger than ${LIMITS.skills.fileBytes} bytes`);
    entries.push({ name: dir ? name : zipPath(name), method, flags, compressed, size, local, dir });
  }
  return entries;
}

/** An entry's path checked before anything is read: relative, no `.`/`..` segments, no backslashes or drive letters. */
function zipPath(name: string): string {
  if (name.startsWith('/') || name.includes('\\') || /^[A-Za-z]:/.test(name)) throw refuse(`"${name.slice(0, 100)}" is an absolute path`);
  const segments = name.split('/');
  if (segments.some((s) => s === '..' || s === '.' || s === '')) throw refuse(`"${name.slice(0, 100)}" leaves the skill's folder or has an empty part`);
  return name;
}

function inflateBounded(data: Uint8Array, name: string, budget: number): Uint8Array {
  const cap = Math.min(budget, Math.max(LIMITS.skills.fileBytes, LIMITS.skills.body.maxBytes));
  const chunks: Uint8Array[] = [];
  let made = 0;
  const inflater = new Inflate((chunk) => {
    made += chunk.byteLength;
    if (made > cap) throw refuse(made > budget ? `The archive inflates to more than ${LIMITS.skills.inflatedBytes} bytes` : `"${name.slice(0, 100)}" is larger than ${LIMITS.skills.fileBytes} bytes`);
    chunks.push(chunk);
  });
  const STEP = 1024;
  try {
    for (let i = 0; i < data.byteLength; i += STEP) inflater.push(data.subarray(i, i + STEP), i + STEP >= data.byteLength);
    if (data.byteLength === 0) inflater.push(new Uint8Array(0), true);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw refuse(`"${name.slice(0, 100)}" is not valid deflate data`);
  }
  return Buffer.concat(chunks);
}
