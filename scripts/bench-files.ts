/**
 * npm run bench:files — what files cost (issue 29, ADR 058; a benchmark that prints figures, never a test).
 *
 * On a temporary DATA_DIR (SQLite unless DATABASE_URL is set), in this one process:
 * 1. Upload: a 25 MiB body (BENCH_UPLOAD_MB) made lazily in 64 KiB chunks, through uploadFile (the route's path: the
 *    body streamed to the temporary file while hashed, fsync, rename, the rows), BENCH_UPLOADS times (default 3, each
 *    different content). Prints the resident memory's growth over the baseline while it runs (sampled every 2 ms;
 *    target ≤ 10 MB; the first upload of a process apart, see below) and the throughput to local disk.
 * 2. Reading a 10 MiB text file (BENCH_TEXT_MB) in ranges through the `files` tools: read_file by 200-line ranges
 *    across the file, then by 32 KiB byte ranges. Prints the resident memory after each tenth of the reads: it stays
 *    flat (nothing holds the file).
 * Run with `tsx --conditions=react-server` so 'server-only' resolves to its empty build; `--expose-gc` (set below
 * through NODE_OPTIONS in package.json) lets the baselines be taken after a collection.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

const UPLOAD_MB = Number(process.env.BENCH_UPLOAD_MB ?? 25);
const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 3);
const TEXT_MB = Number(process.env.BENCH_TEXT_MB ?? 10);
const CHUNK = 64 * 1024;
const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
const gc = () => (globalThis as { gc?: () => void }).gc?.();

/** A body of `total` bytes made chunk by chunk as it is read (never whole in memory), distinct per seed. */
function lazyBody(total: number, seed: number): ReadableStream<Uint8Array> {
  let sent = 0;
  const chunk = new Uint8Array(CHUNK);
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      const n = Math.min(CHUNK, total - sent);
      crypto.randomFillSync(chunk, 0, 64); // different content each time: no deduplication
      chunk[64] = seed;
      controller.enqueue(chunk.slice(0, n));
      sent += n;
    },
  });
}

async function main() {
  process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-bench-files-'));
  process.env.MIGRATIONS_DIR ??= path.resolve('drizzle');
  process.env.AUTH_SECRET ??= 'bench-secret-bench-secret-bench-secret';
  process.env.FILE_MAX_BYTES ??= String(Math.max(UPLOAD_MB, TEXT_MB) * 1024 * 1024);
  const { createUser } = await import('@/server/auth/users');
  const { createAgent } = await import('@/server/agents/catalog');
  const { agentCreateSchema } = await import('@/lib/schemas/agent');
  const { createConversation } = await import('@/server/agents/conversations');
  const { uploadFile } = await import('@/server/files/upload');
  const { fileTools } = await import('@/server/files/tool-group/tools');
  const { closeDb } = await import('@/server/db');

  const user = await createUser({ email: `bench-${crypto.randomUUID().slice(0, 8)}@example.test`, password: 'correct horse battery', name: 'bench' });
  const agent = await createAgent(user.id, agentCreateSchema.parse({ name: 'Bench' }));
  const chat = await createConversation(user.id, agent.id);
  const scope = { kind: 'conversation' as const, id: chat.id };

  console.log(`bench:files — ${UPLOADS} uploads of ${UPLOAD_MB} MiB, then a ${TEXT_MB} MiB text file read in ranges (${process.env.DATABASE_URL ? 'Postgres, its large-object store' : 'SQLite, the local disk store'})`);
  // Warm-up: load the upload path's code before measuring.
  await uploadFile(user.id, scope, 'warm.bin', lazyBody(1024 * 1024, 255), null);

  const growths: number[] = [];
  const rates: number[] = [];
  for (let i = 0; i < UPLOADS; i++) {
    gc();
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
    const started = performance.now();
    const file = await uploadFile(user.id, scope, `upload-${i}.bin`, lazyBody(UPLOAD_MB * 1024 * 1024, i), null);
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    growths.push(peak - base);
    rates.push(file.size / (1024 * 1024) / seconds);
    console.log(`  upload ${i + 1}: ${mb(file.size)} in ${seconds.toFixed(2)} s (${(file.size / (1024 * 1024) / seconds).toFixed(0)} MB/s); RSS growth ${mb(peak - base)}`);
  }
  // The first large upload of a process also grows V8's young generation to hold the body's chunks until they are
  // collected (garbage, not kept): reported apart from the uploads after it.
  const later = growths.slice(1);
  console.log(
    `upload: RSS growth first ${mb(growths[0]!)}, later max ${later.length ? mb(Math.max(...later)) : 'n/a'} (target ≤ 10 MB); throughput median ${rates.sort((a, b) => a - b)[Math.floor(rates.length / 2)]!.toFixed(0)} MB/s`,
  );

  // A text file of TEXT_MB: numbered lines of ~100 characters.
  const line = (n: number) => `${String(n).padStart(8, '0')} ${'lorem ipsum dolor sit amet '.repeat(3)}\n`;
  const lines = Math.ceil((TEXT_MB * 1024 * 1024) / line(0).length);
  let n = 0;
  const encoder = new TextEncoder();
  const textBody = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (n >= lines) return controller.close();
      let chunk = '';
      while (n < lines && chunk.length < CHUNK) chunk += line(n++);
      controller.enqueue(encoder.encode(chunk));
    },
  });
  const text = await uploadFile(user.id, scope, 'big.txt', textBody, null);
  const context = { ownerId: user.id, conversationId: chat.id, runId: 'bench', agentId: agent.id };
  const read = fileTools(context).find((t) => t.name === 'read_file')! as unknown as { invoke(a: unknown, c: unknown): Promise<string> };
  const config = { configurable: { ensemble: context } };
  const reads: Array<Record<string, number | string>> = [];
  for (let start = 1; start <= lines; start += Math.ceil(lines / 25)) reads.push({ file_id: text.id, start_line: start, end_line: start + 199 });
  for (let start = 0; start < text.size; start += Math.ceil(text.size / 25)) reads.push({ file_id: text.id, start_byte: start, end_byte: start + 32 * 1024 });
  gc();
  const base = process.memoryUsage().rss;
  const samples: number[] = [];
  const started = performance.now();
  for (const [i, args] of reads.entries()) {
    const out = JSON.parse(await read.invoke(args, config)) as { text: string };
    if (!out.text.length) throw new Error(`read ${JSON.stringify(args)} returned nothing`);
    if (i % Math.ceil(reads.length / 10) === 0) samples.push(process.memoryUsage().rss - base);
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`ranged reads of a ${mb(text.size)} text file: ${reads.length} reads in ${seconds.toFixed(2)} s; RSS over baseline at each tenth: ${samples.map(mb).join(', ')}`);
  await closeDb();
  fs.rmSync(process.env.DATA_DIR, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
