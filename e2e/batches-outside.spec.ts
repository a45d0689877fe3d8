import { request, type APIRequestContext } from '@playwright/test';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import { ROOT_DIR, SERVER_ENV } from './env';
import { expect, test } from './fixtures';
import { readBatch, readItems, startBatch, type Batch } from './support/batch-api';
import { createAgent } from './support/team-flows';

/**
 * Durable batches tried from outside (issue 30): the built app (`next start`) through its HTTP API only, as a script
 * would use it — a CSV's rows sent as items, the exports read back and compared with what was sent, a cancel in the
 * middle, and the server SIGKILLed in the middle and started again on the same data directory. The browser's own
 * flows are in batches.spec.ts; the crash test (npm run test:crash) checks the rows after many kills, this the export.
 */

test.describe.configure({ timeout: 90_000 });

type Exported = { index: number; status: string; attempts: number; input: Record<string, string>; result: string | null; truncated: boolean; error: string | null };

async function exportJsonl(api: APIRequestContext, id: string): Promise<Exported[]> {
  const res = await api.get(`/api/v1/batches/${id}/export?format=jsonl`);
  expect(res.status(), await res.text()).toBe(200);
  expect(res.headers()['content-type']).toContain('application/x-ndjson');
  const text = await res.text();
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as Exported);
}

/** Poll the batch (bounded) until it has ended; its view then. */
async function ended(api: APIRequestContext, id: string, timeout: number): Promise<Batch> {
  await expect.poll(async () => (await readBatch(api, id)).status, { timeout }).toMatch(/^(completed|cancelled)$/);
  return readBatch(api, id);
}

// Quoted commas, doubled quotes, a quoted line break, CJK, emoji (a ZWJ family among them), and cells a spreadsheet would
// run as formulas. The `name` column is what each item's scripted model replies; `note` is only part of the prompt.
const CSV = [
  'name,note',
  '"Lovelace, Ada","She said ""hi"", then left"',
  '李雷,"第一行',
  '第二行"',
  '"😀 Grin ""👩‍👩‍👧""",=SUM(A1)',
  '"=1+1",@mention',
  'Ωmega,"  padded, with spaces  "',
].join('\r\n');
const SENT = [
  { name: 'Lovelace, Ada', note: 'She said "hi", then left' },
  { name: '李雷', note: '第一行\r\n第二行' },
  { name: '😀 Grin "👩‍👩‍👧"', note: '=SUM(A1)' },
  { name: '=1+1', note: '@mention' },
  { name: 'Ωmega', note: '  padded, with spaces  ' },
];

test('a CSV with quotes, CJK and emoji, sent as items: every item done once, and both exports read back equal what was sent', async ({ api, accounts }) => {
  // The client reads the CSV (the same library the browser's form uses) and sends its rows as they are.
  const parsed = Papa.parse<Record<string, string>>(CSV, { header: true, skipEmptyLines: true });
  expect(parsed.errors).toEqual([]);
  expect(parsed.data).toEqual(SENT);

  const agent = await createAgent(api, { name: 'Reader' });
  const batch = await startBatch(api, {
    target: { agentId: agent.id },
    template: '/reply {{name}}\nNote: {{note}}',
    columns: ['name', 'note'],
    items: parsed.data,
    concurrency: 3,
    maxAttempts: 1,
  });
  const done = await ended(api, batch.id, 30_000);
  expect(done).toMatchObject({ status: 'completed', counts: { queued: 0, running: 0, waiting: 0, done: SENT.length, failed: 0, cancelled: 0 } });

  // JSONL: one object per item, in order, each with exactly its row as input and its reply as result.
  expect(await exportJsonl(api, batch.id)).toEqual(
    SENT.map((row, index) => ({ index, status: 'done', attempts: 1, input: row, result: row.name, truncated: false, error: null })),
  );

  // CSV: read back with a CSV reader, every field intact. What must not happen: a cell starting with = or @ reaching a
  // spreadsheet as a formula; such a cell comes back with a leading apostrophe, every other byte as sent.
  const csv = await api.get(`/api/v1/batches/${batch.id}/export?format=csv`);
  expect(csv.status()).toBe(200);
  expect(csv.headers()['content-type']).toContain('text/csv');
  // A UTF-8 byte order mark first, so a spreadsheet reads the non-ASCII text as written (the reader skips it).
  expect([...(await csv.body()).subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const table = Papa.parse<string[]>(await csv.text(), { skipEmptyLines: true });
  expect(table.errors).toEqual([]);
  const text = (value: string) => (/^[=+\-@]/.test(value) ? `'${value}` : value);
  expect(table.data).toEqual([
    ['index', 'status', 'attempts', 'name', 'note', 'result', 'truncated', 'error'],
    ...SENT.map((row, index) => [String(index), 'done', '1', text(row.name), text(row.note), text(row.name), 'false', '']),
  ]);

  // Another account reads none of it: the batch, its items and its export are 404, and the values never appear.
  const other = await accounts.apiFor(await accounts.create('other'));
  for (const url of [`/api/v1/batches/${batch.id}`, `/api/v1/batches/${batch.id}/items`, `/api/v1/batches/${batch.id}/export?format=jsonl`]) {
    const res = await other.get(url);
    expect(res.status(), url).toBe(404);
    expect(await res.text()).not.toContain('Lovelace');
  }
});

test('a cancel in the middle, through the API: the unfinished items end at once and stay ended after their runs stop; the export shows the finished ones’ results', async ({
  api,
}) => {
  const agent = await createAgent(api, { name: 'Slow reader' });
  const rows = Array.from({ length: 10 }, (_, i) => ({ n: `${i + 1} 東京 🚀` }));
  const batch = await startBatch(api, { target: { agentId: agent.id }, template: '/sleep 1500\n/reply item {{n}}', columns: ['n'], items: rows, concurrency: 2 });
  // In the middle: something done, and a run going.
  await expect
    .poll(
      async () => {
        const items = await readItems(api, batch.id);
        return items.some((i) => i.status === 'done') && items.some((i) => i.status === 'running' && i.runId);
      },
      { timeout: 30_000, intervals: [100] },
    )
    .toBe(true);

  const res = await api.post(`/api/v1/batches/${batch.id}/cancel`);
  expect(res.status(), await res.text()).toBe(200);
  const cancelled = ((await res.json()) as { batch: Batch }).batch;
  // Every unfinished item ended in the cancel's own answer: none queued or running.
  expect(cancelled.counts.queued + cancelled.counts.running).toBe(0);
  expect(cancelled.counts.cancelled).toBeGreaterThan(0);

  // The runs that were going when it was cancelled stop; what they report afterwards must not be recorded: their
  // items stay cancelled, with no result.
  const items = await readItems(api, batch.id);
  const cut = items.filter((i) => i.status === 'cancelled' && i.runId);
  expect(cut.length).toBeGreaterThan(0);
  for (const item of cut) {
    await expect
      .poll(async () => ((await (await api.get(`/api/v1/runs/${item.runId}`)).json()) as { run: { status: string } }).run.status, { timeout: 15_000 })
      .not.toMatch(/^(pending|running)$/);
  }
  const after = await readItems(api, batch.id);
  for (const item of cut) expect(after.find((i) => i.id === item.id)).toMatchObject({ status: 'cancelled', result: null });
  expect((await readBatch(api, batch.id)).counts).toEqual(cancelled.counts);

  // The export agrees with the items: the finished ones with their replies, the rest cancelled without a result.
  const exported = await exportJsonl(api, batch.id);
  expect(exported.map((e) => e.index)).toEqual(rows.map((_, i) => i));
  for (const entry of exported) {
    expect(entry.input).toEqual(rows[entry.index]);
    if (entry.status === 'done') expect(entry.result).toBe(`item ${rows[entry.index]!.n}`);
    else expect(entry).toMatchObject({ status: 'cancelled', result: null });
  }
  expect(exported.filter((e) => e.status === 'done').length).toBe(cancelled.counts.done);
});

// ── A crash in the middle: a server of its own (the e2e build on its own data directory and port), SIGKILLed ──

/** A port free now (the kernel's choice), kept for both of the test's servers: no other spec or worker takes it. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

type Server = { child: ChildProcess; url: string; output: () => string };

/** `next start` directly (no npm or shell between), so its pid is the server's and SIGKILL kills the server. */
function startServer(dataDir: string, port: number): Server {
  const child = spawn(path.join(ROOT_DIR, 'node_modules/.bin/next'), ['start', '--port', String(port), '--hostname', '127.0.0.1'], {
    cwd: ROOT_DIR,
    env: { ...process.env, ...SERVER_ENV, DATA_DIR: dataDir, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000)));
  return { child, url: `http://127.0.0.1:${port}`, output: () => output };
}

async function healthy(server: Server): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.child.exitCode !== null) throw new Error(`the server exited:\n${server.output()}`);
    const ok = await fetch(`${server.url}/api/health`, { signal: AbortSignal.timeout(2_000) }).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`the server was not healthy within 60 s:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

test('the server SIGKILLed in the middle of a batch and started again on the same data: every item ends exactly once, and the export equals what was sent', async () => {
  test.setTimeout(150_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-e2e-batch-crash-'));
  const port = await freePort();
  let server = startServer(dataDir, port);
  let api: APIRequestContext | undefined;
  try {
    await healthy(server);
    // An account with an API token in this data directory, through the user CLI (as the crash test makes its owners).
    const made = spawnSync(
      path.join(ROOT_DIR, 'node_modules/.bin/tsx'),
      ['--conditions=react-server', 'scripts/user.ts', 'create', '--email', 'crash@e2e.test', '--password', 'crash-password-123', '--token'],
      { cwd: ROOT_DIR, env: { ...process.env, ...SERVER_ENV, DATA_DIR: dataDir }, encoding: 'utf8' },
    );
    expect(made.status, made.stderr).toBe(0);
    const { token } = JSON.parse(made.stdout.trim().split('\n').at(-1)!) as { token: string };
    api = await request.newContext({ baseURL: server.url, extraHTTPHeaders: { authorization: `Bearer ${token}` } });

    const agent = await createAgent(api, { name: 'Survivor' });
    const rows = Array.from({ length: 18 }, (_, i) => ({ v: `${i} 李雷 "${i}" 😀`, ms: String(400 + ((i * 137) % 600)) }));
    const batch = await startBatch(api, { target: { agentId: agent.id }, template: '/sleep {{ms}}\n/reply {{v}}', columns: ['v', 'ms'], items: rows, concurrency: 3, maxAttempts: 3 });
    // In the middle: some items done, and a run executing.
    await expect
      .poll(
        async () => {
          const items = await readItems(api!, batch.id);
          return items.filter((i) => i.status === 'done').length >= 2 && items.some((i) => i.status === 'running' && i.runId);
        },
        { timeout: 30_000, intervals: [100] },
      )
      .toBe(true);
    const before = await readItems(api, batch.id);
    expect(before.some((i) => i.status === 'queued')).toBe(true);

    await kill(server.child);
    server = startServer(dataDir, port);
    await healthy(server);

    const final = await ended(api, batch.id, 60_000);
    // What must not happen: an item lost, run twice to two results, or left queued or running.
    expect(final).toMatchObject({ status: 'completed', counts: { queued: 0, running: 0, waiting: 0, done: rows.length, failed: 0, cancelled: 0 } });
    const exported = await exportJsonl(api, batch.id);
    expect(exported.map((e) => ({ index: e.index, status: e.status, input: e.input, result: e.result, truncated: e.truncated, error: e.error }))).toEqual(
      rows.map((row, index) => ({ index, status: 'done', input: row, result: row.v, truncated: false, error: null })),
    );
    // A run cut by the kill is carried through by recovery, never an extra attempt past the budget.
    for (const entry of exported) expect(entry.attempts).toBeGreaterThanOrEqual(1);
    for (const entry of exported) expect(entry.attempts).toBeLessThanOrEqual(3);
    // The items finished before the kill kept their one attempt and their result.
    const exportedAt = new Map(exported.map((e) => [e.index, e]));
    for (const item of before.filter((i) => i.status === 'done')) expect(exportedAt.get(item.index)).toMatchObject({ attempts: item.attempts, result: item.result });
  } finally {
    await api?.dispose();
    await kill(server.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
