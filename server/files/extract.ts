import 'server-only';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LIMITS } from '@/lib/limits';
import type { FileVersionRow } from '@/server/db/schema';
import { versionBytes } from './files';

export const PDF_TYPE = 'application/pdf';
export const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

export type Extracted = { ok: true; text: string; truncated: boolean } | { ok: false; reason: string };

/**
 * The text of a PDF (pdf-parse) or DOCX (mammoth), extracted in a separate Node process with a heap cap and a time
 * limit (LIMITS.files.extract): a decompression bomb or a parser loop ends that process, never this one. The bytes go
 * in on stdin; at most maxChars characters come back (the child cuts, and this side stops reading past the bound).
 */
export async function extractText(version: FileVersionRow, kind: 'pdf' | 'docx', maxChars: number = LIMITS.files.extract.maxChars, bounds: { timeoutMs: number; memoryMb: number } = LIMITS.files.extract): Promise<Extracted> {
  const script = path.join(process.cwd(), 'scripts', 'file-extract.mjs');
  const child = spawn(process.execPath, [`--max-old-space-size=${bounds.memoryMb}`, script, kind, String(maxChars)], { stdio: ['pipe', 'pipe', 'pipe'] });
  const maxOut = maxChars * 4 + 1_024;
  let out = '';
  let outBytes = 0;
  let overflow = false;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (data: string) => {
    outBytes += Buffer.byteLength(data);
    if (outBytes > maxOut) {
      overflow = true;
      child.kill('SIGKILL');
    } else out += data;
  });
  child.stderr.resume();
  const timer = setTimeout(() => child.kill('SIGKILL'), bounds.timeoutMs);
  // The heap cap does not count buffers (an inflated ZIP entry is one): the child's resident memory is watched too.
  const watch = setInterval(() => {
    if (child.pid && residentMb(child.pid) > bounds.memoryMb * 2) child.kill('SIGKILL');
  }, 50);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  const feed = (async () => {
    try {
      for await (const chunk of versionBytes(version)) {
        if (!child.stdin.write(chunk)) await new Promise<void>((resolve, reject) => child.stdin.once('drain', resolve).once('error', reject));
      }
      child.stdin.end();
    } catch {
      child.kill('SIGKILL'); // the child died (a bomb) or the content could not be read: the exit says which
    }
  })();
  child.stdin.on('error', () => undefined); // EPIPE when the child is killed mid-write: reported by its exit
  const { code, signal } = await exited;
  clearTimeout(timer);
  clearInterval(watch);
  await feed;
  if (overflow) return { ok: false, reason: 'The extracted text was larger than allowed' };
  if (signal === 'SIGKILL' && !overflow) return { ok: false, reason: `Text extraction stopped: it took longer than ${bounds.timeoutMs / 1000} s or too much memory` };
  if (code !== 0) return { ok: false, reason: code === 2 ? 'The file could not be read as a ' + kind.toUpperCase() : 'Text extraction stopped: the file needs more memory than allowed' };
  try {
    const parsed = JSON.parse(out) as { text: string; truncated: boolean };
    return { ok: true, text: parsed.text, truncated: parsed.truncated };
  } catch {
    return { ok: false, reason: 'Text extraction failed' };
  }
}

/** A process's resident memory in MB from /proc (Linux); 0 where it can't be read (the time limit still holds). */
function residentMb(pid: number): number {
  try {
    const pages = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
    return (pages * 4096) / (1024 * 1024);
  } catch {
    return 0;
  }
}
