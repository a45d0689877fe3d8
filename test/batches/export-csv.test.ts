import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import * as batchesRoute from '@/app/api/v1/batches/route';
import * as exportRoute from '@/app/api/v1/batches/[id]/export/route';
import { makeAgent } from '../agents/helpers';
import { call } from '../support/teams';
import { makeUser } from '../support/users';
import { ended, withBatchScheduler } from './helpers';

withBatchScheduler();

async function csvOf(auth: Record<string, string>, id: string) {
  const res = await exportRoute.GET(new Request('http://localhost/x?format=csv', { headers: auth }), { params: Promise.resolve({ id }) });
  expect(res.status).toBe(200);
  return Papa.parse<Record<string, string>>(await res.text(), { header: true, skipEmptyLines: true });
}

describe('GET /api/v1/batches/:id/export?format=csv: input columns never pass for the export’s own', () => {
  it('reads back unambiguously with a header reader when input columns are named like the fixed ones, in ASCII, CJK and emoji', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    // What must not happen: a reader's `status` (or `index`, `Result`…) being the input's value instead of the export's.
    const columns = ['index', 'status', 'Result', 'input.status', '名前', '😀 mood'];
    const items = [
      { index: 'in-1', status: 'pending', Result: 'theirs', 'input.status': 'nested', 名前: '李', '😀 mood': '开心 🎉' },
      { index: 'in-2', status: 'draft', Result: 'mine', 'input.status': 'deep', 名前: 'Zoë', '😀 mood': 'glad' },
    ];
    const res = await call(batchesRoute.POST, {
      method: 'POST',
      headers: alice.auth,
      body: { target: { agentId: agent.id }, template: '/reply {{名前}} {{😀 mood}}', columns, items, concurrency: 1 },
    });
    expect(res.status).toBe(201);
    const id = (res.body.batch as { id: string }).id;
    await ended(id);

    const table = await csvOf(alice.auth, id);
    expect(table.errors).toEqual([]);
    expect(table.meta.fields).toEqual([
      'index', 'status', 'attempts', 'input.index', 'input.status', 'input.Result', 'input.input.status', '名前', '😀 mood', 'result', 'truncated', 'error',
    ]);
    // Every header is distinct, so a header reader keeps every value.
    expect(new Set(table.meta.fields).size).toBe(table.meta.fields!.length);
    expect(table.data).toEqual([
      {
        index: '0', status: 'done', attempts: '1', 'input.index': 'in-1', 'input.status': 'pending', 'input.Result': 'theirs',
        'input.input.status': 'nested', 名前: '李', '😀 mood': '开心 🎉', result: '李 开心 🎉', truncated: 'false', error: '',
      },
      {
        index: '1', status: 'done', attempts: '1', 'input.index': 'in-2', 'input.status': 'draft', 'input.Result': 'mine',
        'input.input.status': 'deep', 名前: 'Zoë', '😀 mood': 'glad', result: 'Zoë glad', truncated: 'false', error: '',
      },
    ]);
  });

  it('keeps input columns that clash with nothing under their own names', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    const res = await call(batchesRoute.POST, {
      method: 'POST',
      headers: alice.auth,
      body: { target: { agentId: agent.id }, template: '/reply {{name}}', columns: ['name', 'statuses', 'inputs'], items: [{ name: 'Ann', statuses: 's', inputs: 'i' }], concurrency: 1 },
    });
    expect(res.status).toBe(201);
    const id = (res.body.batch as { id: string }).id;
    await ended(id);
    const table = await csvOf(alice.auth, id);
    expect(table.meta.fields).toEqual(['index', 'status', 'attempts', 'name', 'statuses', 'inputs', 'result', 'truncated', 'error']);
    expect(table.data).toEqual([{ index: '0', status: 'done', attempts: '1', name: 'Ann', statuses: 's', inputs: 'i', result: 'Ann', truncated: 'false', error: '' }]);
  });

  it('starts with a UTF-8 byte order mark, once, so Excel reads CJK, accents and emoji as written', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    const res = await call(batchesRoute.POST, {
      method: 'POST',
      headers: alice.auth,
      body: { target: { agentId: agent.id }, template: '/reply {{名前}} {{mood}}', columns: ['名前', 'mood'], items: [{ 名前: '李雷', mood: 'Zoë 😀🎉' }], concurrency: 1 },
    });
    expect(res.status).toBe(201);
    const id = (res.body.batch as { id: string }).id;
    await ended(id);
    const download = await exportRoute.GET(new Request('http://localhost/x?format=csv', { headers: alice.auth }), { params: Promise.resolve({ id }) });
    expect(download.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    // The bytes, not text(): a UTF-8 decoder drops a leading BOM.
    const bytes = new Uint8Array(await download.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
    expect(text.indexOf('\uFEFF')).toBe(0);
    expect(text.lastIndexOf('\uFEFF')).toBe(0);
    // After the mark, the file reads back exactly.
    const table = Papa.parse<Record<string, string>>(text.slice(1), { header: true, skipEmptyLines: true });
    expect(table.errors).toEqual([]);
    expect(table.meta.fields?.[3]).toBe('名前');
    expect(table.data).toEqual([{ index: '0', status: 'done', attempts: '1', 名前: '李雷', mood: 'Zoë 😀🎉', result: '李雷 Zoë 😀🎉', truncated: 'false', error: '' }]);

    // JSONL has none (JSON text must not start with one).
    const jsonl = await exportRoute.GET(new Request('http://localhost/x?format=jsonl', { headers: alice.auth }), { params: Promise.resolve({ id }) });
    expect([...new Uint8Array(await jsonl.arrayBuffer()).slice(0, 1)]).toEqual([0x7b]);
  });

  it('another owner’s export is 404, with no file', async () => {
    const alice = await makeUser('alice');
    const eve = await makeUser('eve');
    const agent = await makeAgent(alice.id);
    const res = await call(batchesRoute.POST, {
      method: 'POST',
      headers: alice.auth,
      body: { target: { agentId: agent.id }, template: '/reply {{n}}', columns: ['n'], items: [{ n: '秘密' }], concurrency: 1 },
    });
    const id = (res.body.batch as { id: string }).id;
    await ended(id);
    const foreign = await exportRoute.GET(new Request('http://localhost/x?format=csv', { headers: eve.auth }), { params: Promise.resolve({ id }) });
    expect(foreign.status).toBe(404);
    expect(foreign.headers.get('content-disposition')).toBeNull();
    expect(await foreign.text()).not.toContain('秘密');
  });
});
