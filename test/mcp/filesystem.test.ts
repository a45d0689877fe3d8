import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpConnection } from '@/server/mcp/connection';
import { connect, FILESYSTEM, stdioSpec, tempDir } from './support';

// @modelcontextprotocol/server-filesystem (software we did not write) on a temporary directory, over stdio.

let root: string;
let conn: McpConnection;
beforeAll(() => {
  root = fs.realpathSync(tempDir('fs'));
  fs.writeFileSync(path.join(root, 'hello.txt'), 'hello 世界 🎉\n');
  conn = connect(stdioSpec([FILESYSTEM, root], { name: 'files' }));
});
afterAll(() => conn.dispose());

const text = (r: Awaited<ReturnType<McpConnection['call']>>) => r.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');

describe('server-filesystem on a temporary directory', () => {
  it('lists its tools, with destructive ones marked', async () => {
    const listed = await conn.tools();
    expect(listed.status).toBe('connected');
    const names = listed.tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['read_text_file', 'write_file', 'list_directory']));
    expect(listed.tools.find((t) => t.name === 'read_text_file')?.annotations?.readOnlyHint).toBe(true);
  });

  it('reads and writes inside its directory', async () => {
    expect(text(await conn.call('read_text_file', { path: path.join(root, 'hello.txt') }))).toContain('hello 世界 🎉');
    const wrote = await conn.call('write_file', { path: path.join(root, 'new.txt'), content: 'written' });
    expect(wrote.isError).toBe(false);
    expect(fs.readFileSync(path.join(root, 'new.txt'), 'utf8')).toBe('written');
    expect(text(await conn.call('list_directory', { path: root }))).toMatch(/new\.txt/);
  });

  it('refuses a path outside its directory as a failed tool call (isError), not a failed run', async () => {
    const res = await conn.call('read_text_file', { path: '/etc/passwd' });
    expect(res.isError).toBe(true);
    expect(text(res)).not.toMatch(/root:/);
  });
});
