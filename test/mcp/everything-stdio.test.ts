import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateArguments } from '@/server/mcp/arguments';
import type { McpConnection } from '@/server/mcp/connection';
import { McpCallError, type McpProgress } from '@/server/mcp/types';
import { connect, EVERYTHING, stdioSpec } from './support';

// @modelcontextprotocol/server-everything (software we did not write) over stdio, through the product's client.

let conn: McpConnection;
beforeAll(() => {
  conn = connect(stdioSpec([EVERYTHING, 'stdio'], { name: 'everything' }));
});
afterAll(() => conn.dispose());

describe('server-everything over stdio', () => {
  it('lists its tools with input schemas, schema hashes and annotations', async () => {
    const listed = await conn.tools();
    expect(listed.status).toBe('connected');
    const names = listed.tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-tiny-image', 'trigger-long-running-operation', 'get-resource-reference']));
    const echo = listed.tools.find((t) => t.name === 'echo')!;
    expect(echo.inputSchema).toMatchObject({ type: 'object', required: ['message'] });
    expect(echo.schemaHash).toMatch(/^[0-9a-f]{64}$/);
    expect(echo.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(new Set(listed.tools.map((t) => t.schemaHash)).size).toBe(listed.tools.length);
  });

  it('calls a tool and returns its text', async () => {
    const res = await conn.call('echo', { message: 'héllo 世界 🎉' });
    expect(res).toMatchObject({ isError: false, truncated: false });
    expect(res.parts).toEqual([{ type: 'text', text: 'Echo: héllo 世界 🎉' }]);
  });

  it('refuses arguments that break the input schema before calling', async () => {
    const sum = (await conn.tools()).tools.find((t) => t.name === 'get-sum')!;
    expect(() => validateArguments(sum, { a: 'one', b: 2 })).toThrow(McpCallError);
    expect(() => validateArguments(sum, { a: 1 })).toThrow(/b/);
    expect(validateArguments(sum, { a: 1, b: 2 })).toEqual({ a: 1, b: 2 });
  });

  it('returns an image as a typed reference: MIME type and size, no bytes', async () => {
    const res = await conn.call('get-tiny-image', {});
    const image = res.parts.find((p) => p.type === 'image');
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect((image as { byteLength: number }).byteLength).toBeGreaterThan(0);
    expect(JSON.stringify(res)).not.toMatch(/iVBOR/); // PNG's base64 signature: the bytes are not carried
  });

  it('returns embedded and linked resources as typed references', async () => {
    const embedded = await conn.call('get-resource-reference', { resourceType: 'Text', resourceId: 1 });
    expect(embedded.parts.some((p) => p.type === 'resource' && p.uri.startsWith('demo://') && typeof p.text === 'string')).toBe(true);
    const links = await conn.call('get-resource-links', { count: 2 });
    expect(links.parts.filter((p) => p.type === 'resource')).toHaveLength(2);
  });

  it('reports progress of a long-running operation', async () => {
    const progress: McpProgress[] = [];
    const res = await conn.call('trigger-long-running-operation', { duration: 1, steps: 3 }, { onProgress: (p) => progress.push(p) });
    expect(res.isError).toBe(false);
    // The SDK hands a notification on a microtask later than a response: a last step sent just before the result can
    // arrive after the call resolved, so the first steps are certain and the last is not.
    expect(progress.map((p) => p.progress).slice(0, 2)).toEqual([1, 2]);
    expect(progress.every((p) => p.total === 3)).toBe(true);
  });

  it('cancels a long-running operation when the caller aborts, and the connection stays usable', async () => {
    const controller = new AbortController();
    const call = conn.call('trigger-long-running-operation', { duration: 20, steps: 20 }, { signal: controller.signal, onProgress: () => controller.abort() });
    await expect(call).rejects.toMatchObject({ code: 'cancelled' });
    expect((await conn.call('echo', { message: 'still here' })).parts).toEqual([{ type: 'text', text: 'Echo: still here' }]);
  });

  it('times out a call that outlasts its timeout', async () => {
    await expect(conn.call('trigger-long-running-operation', { duration: 10, steps: 2 }, { timeoutMs: 300 })).rejects.toMatchObject({ code: 'timeout' });
  });

  it('returns a tool that fails its own validation as an isError result, not a thrown error', async () => {
    // Sent without the client's check (it would refuse first): the server's own refusal is a failed tool call.
    const res = await conn.call('get-sum', { a: 'x' } as Record<string, unknown>);
    expect(res.isError).toBe(true);
    expect(res.parts[0]).toMatchObject({ type: 'text' });
  });
});
