/**
 * npm run bench:files — what files cost (issue 29, ADR 058; a benchmark that prints figures, never a test).
 *
 * On a temporary DATA_DIR (SQLite unless DATABASE_URL is set), the server side in this process:
 * 1. Upload: a 25 MiB body (BENCH_UPLOAD_MB), BENCH_UPLOADS times (default 5, each different content), POSTed over
 *    HTTP by a client process (scripts/bench/upload-client.mjs, 64 KiB writes) to the real upload route handler
 *    (POST /api/v1/conversations/:id/files, bearer token), which gets a NextRequest over the IncomingMessage as in the
 *    app: the same parser and Request-body copies of each chunk, streamed to the temporary file while hashed, fsync,
 *    rename, the rows. Prints the server's resident memory growth over the baseline while each upload runs (sampled
 *    every 2 ms; target ≤ 10 MB, the first upload of the process included), p50/p99/max, and the time and
 *    throughput to the store.
 * 2. Reading a 10 MiB text file (BENCH_TEXT_MB) in ranges through the `files` tools: read_file by 200-line ranges
 *    across the file, then by 32 KiB byte ranges. Prints the resident memory after each tenth of the reads: it stays
 *    flat (nothing holds the file).
 * Run with `tsx --conditions=react-server` so 'server-only' resolves to its empty build; `--expose-gc` (set below
 * through NODE_OPTIONS in package.json) lets the baselines be taken after a collection.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { performance } from 'node:perf_hooks';

const UPLOAD_MB = Number(process.env.BENCH_UPLOAD_MB ?? 25);
const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 5);
const TEXT_MB = Number(process.env.BENCH_TEXT_MB ?? 10);
const CHUNK = 64 * 1024;
const execFileAsync = promisify(execFile);
const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
const gc = () => (globalThis as { gc?: () => void }).gc?.();

/** p50 and p99 (nearest rank) and the maximum of a list of figures, formatted. */
function stats(values: number[], format: (v: number) => string): string {
  return `p50 ${format(rank(values, 50))}, p99 ${format(rank(values, 99))}, max ${format(Math.max(...values))} (n=${values.length})`;
}
stats.p50 = (values: number[]) => rank(values, 50);
function rank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

type Handler = (req: Request, ctx: { params: Promise<{ id: string }> }) => Response | Promise<Response>;

/**
 * The route handler behind a plain HTTP server, given the request as Next's Node server gives it to an App Router
 * handler: a NextRequest over the IncomingMessage (undici reads it into a byte stream), so the body arrives through
 * the same socket reads and copies as in the app.
 */
async function routeServer(handler: Handler, id: string): Promise<{ port: number; close(): void }> {
  const { NextRequest } = await import('next/server');
  const server = http.createServer(async (req, res) => {
    const request = new NextRequest(new URL(req.url!, 'http://127.0.0.1'), {
      method: req.method,
      headers: Object.entries(req.headers).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v] as [string, string]] : [])),
      body: req as unknown as ReadableStream<Uint8Array>,
      duplex: 'half',
    } as ConstructorParameters<typeof NextRequest>[1]);
    const response = await handler(request, { params: Promise.resolve({ id }) });
    res.writeHead(response.status, { 'content-type': 'application/json' });
    res.end(await response.text());
  });
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

/** Upload `bytes` bytes from a client process (scripts/bench/upload-client.mjs): its own chunks are not ours. */
async function upload(url: string, token: string, bytes: number, seed: number): Promise<{ file: { id: string; size: number }; seconds: number }> {
  // The client exits non-zero (and the await throws) only when it could not send at all; a refusal is in its output.
  const { stdout: out } = await execFileAsync(process.execPath, [path.resolve('scripts/bench/upload-client.mjs'), url, token, String(bytes), String(seed)]);
  const { status, body, ms } = JSON.parse(out || '{}') as { status?: number; body?: string; ms?: number };
  if (status !== 201) throw new Error(`upload answered ${status}: ${body}`);
  return { file: (JSON.parse(body!) as { file: { id: string; size: number } }).file, seconds: ms! / 1000 };
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
  const { scopeFileRoutes } = await import('@/server/files/scope-routes');
  const { createApiToken } = await import('@/server/auth/tokens');
  const { closeDb } = await import('@/server/db');

  const user = await createUser({ email: `bench-${crypto.randomUUID().slice(0, 8)}@example.test`, password: 'correct horse battery', name: 'bench' });
  const agent = await createAgent(user.id, agentCreateSchema.parse({ name: 'Bench' }));
  const chat = await createConversation(user.id, agent.id);
  const scope = { kind: 'conversation' as const, id: chat.id };

  console.log(`bench:files — ${UPLOADS} uploads of ${UPLOAD_MB} MiB through the upload route, then a ${TEXT_MB} MiB text file read in ranges (${process.env.DATABASE_URL ? 'Postgres, its large-object store' : 'SQLite, the local disk store'})`);
  const { token } = await createApiToken(user.id, 'bench');
  const server = await routeServer(scopeFileRoutes('conversation').POST, chat.id);
  const url = (name: string) => `http://127.0.0.1:${server.port}/api/v1/conversations/${chat.id}/files?name=${name}`;
  // Warm-up: load the upload path's code (and the HTTP server's) before measuring.
  await upload(url('warm.bin'), token, 1024 * 1024, 255);

  const growths: number[] = [];
  const times: number[] = [];
  for (let i = 0; i < UPLOADS; i++) {
    gc();
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
    const { file, seconds } = await upload(url(`upload-${i}.bin`), token, UPLOAD_MB * 1024 * 1024, i);
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    growths.push(peak - base);
    times.push(seconds);
    console.log(`  upload ${i + 1}: ${mb(file.size)} in ${seconds.toFixed(2)} s (${(file.size / (1024 * 1024) / seconds).toFixed(0)} MB/s); RSS growth ${mb(peak - base)}`);
  }
  server.close();
  console.log(`upload: RSS growth ${stats(growths, mb)}, first ${mb(growths[0]!)} (target ≤ 10 MB each); time ${stats(times, (t) => `${t.toFixed(2)} s`)}, throughput at p50 ${(UPLOAD_MB / stats.p50(times)).toFixed(0)} MB/s`);

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
