import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { validateArguments } from '@/server/mcp/arguments';
import type { McpConnection } from '@/server/mcp/connection';
import { McpCallError } from '@/server/mcp/types';
import { alive, connect, stdioSpec, STUB, stubLog, tempDir, until } from './support';

// The client against a small stub server (test/mcp/fixtures/stub-server.mjs) that misbehaves on request. Each case
// says what must not happen: a run waiting forever, a result past its bound, a server left running, a call lost.

const open: McpConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.dispose()));
});

function stub(env: Record<string, string> = {}, over: Parameters<typeof stdioSpec>[1] = {}) {
  const log = path.join(tempDir('stub'), 'log.jsonl');
  const conn = connect(stdioSpec([STUB], { name: 'stub', env: { STUB_LOG: log, ...env }, ...over }));
  open.push(conn);
  return { conn, log };
}

describe('a command that exits as it starts', () => {
  it("says why from its error output: Node's error line, not the version line it prints last", async () => {
    const conn = connect(stdioSpec([path.join(tempDir('missing'), 'no-such-server.mjs')], { name: 'missing' }));
    open.push(conn);
    const status = await conn.tools();
    expect(status.status).toBe('error');
    expect(status.error).toMatch(/^The MCP server "missing" could not be started or reached: Error: Cannot find module '.*no-such-server\.mjs'$/);
  });

  it('that is not found says so, without the SDK\'s "Connection closed" in front', async () => {
    const conn = connect(stdioSpec([], { name: 'typo', command: 'nodee-not-installed' }));
    open.push(conn);
    expect((await conn.tools()).error).toBe('The MCP server "typo" could not be started or reached: Could not start nodee-not-installed: spawn nodee-not-installed ENOENT');
  });

  it('that writes something other than JSON-RPC (a plain program, not an MCP server) is said to be one', async () => {
    const conn = connect(stdioSpec(['-e', "console.log('hello, I am not an MCP server'); setInterval(() => {}, 1000)"], { name: 'chatty' }));
    open.push(conn);
    const status = await conn.tools();
    expect(status.error).toBe('The MCP server "chatty" could not be started or reached: it sent a message that is not valid JSON-RPC');
  });
});

describe('a server that never answers', () => {
  it('fails the call at its timeout and tells the server it was cancelled', async () => {
    const { conn, log } = stub();
    await conn.call('echo', { message: 'started' }); // the start is not what is timed here
    const started = Date.now();
    await expect(conn.call('hang', {}, { timeoutMs: 400 })).rejects.toMatchObject({ code: 'timeout', message: expect.stringMatching(/"stub" did not answer hang within 400 ms/) });
    expect(Date.now() - started).toBeLessThan(3_000);
    await until(() => stubLog(log).some((e) => e.event === 'cancelled'), 3_000, 'notifications/cancelled');
  });

  it('sends notifications/cancelled when the run cancels', async () => {
    const { conn, log } = stub();
    const controller = new AbortController();
    const call = conn.call('hang', {}, { signal: controller.signal });
    await until(() => stubLog(log).some((e) => e.event === 'call' && e.name === 'hang'), 5_000, 'the call to arrive');
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'cancelled' });
    await until(() => stubLog(log).some((e) => e.event === 'cancelled'), 3_000, 'notifications/cancelled');
  });
});

describe('a server that returns 10 MB', () => {
  it('caps the text at the limit and marks the result truncated', async () => {
    const { conn } = stub();
    const res = await conn.call('big', { mb: 10 });
    expect(res.truncated).toBe(true);
    const text = res.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
    expect(text.length).toBe(LIMITS.mcp.result.textChars);
  });

  it('ends the connection on a message past the wire bound, and the call fails instead of buffering on', async () => {
    const { conn } = stub();
    await expect(conn.call('big', { mb: 17 })).rejects.toMatchObject({ code: 'protocol', message: expect.stringContaining('larger than') });
  });
});

describe('a server that sends malformed JSON-RPC', () => {
  it('fails the call at once with a protocol error, not at the timeout', async () => {
    const { conn } = stub({ STUB_MALFORMED: '1' }, { timeoutMs: 30_000 });
    const started = Date.now();
    await expect(conn.call('echo', { message: 'x' })).rejects.toBeInstanceOf(McpCallError);
    await expect(conn.call('echo', { message: 'x' })).rejects.toMatchObject({ code: expect.stringMatching(/protocol|server_unavailable/) });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('a server that lists 5,000 tools', () => {
  it('follows nextCursor, keeps at most the bound, and says the list was cut', async () => {
    const { conn, log } = stub({ STUB_TOOLS: '5000' });
    const listed = await conn.tools();
    expect(listed.status).toBe('connected');
    expect(listed.tools).toHaveLength(LIMITS.mcp.tools.max);
    expect(listed.toolsTruncated).toBe(true);
    const pages = stubLog(log).filter((e) => e.event === 'list').length;
    expect(pages).toBeGreaterThan(1);
    expect(pages).toBeLessThanOrEqual(Math.ceil(LIMITS.mcp.tools.max / 100) + 1);
  });

  it('reads every page when the list is within the bound, and leaves out names the spec forbids', async () => {
    const { conn } = stub({ STUB_TOOLS: '250' });
    const listed = await conn.tools();
    expect(listed.toolsTruncated).toBeUndefined();
    expect(listed.tools.map((t) => t.name)).toContain('t249');
    expect(listed.tools.map((t) => t.name)).not.toContain('bad pattern');
  });
});

describe('input schemas a server wrote', () => {
  it('validates a catastrophic pattern in linear time, and refuses a pattern RE2 cannot run', async () => {
    const { conn } = stub();
    const tools = (await conn.tools()).tools;
    const redos = tools.find((t) => t.name === 'redos')!;
    const started = Date.now();
    expect(() => validateArguments(redos, { s: `${'a'.repeat(50_000)}!` })).toThrow(/input schema/);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(() => validateArguments(tools.find((t) => t.name === 'backref')!, { s: 'aa' })).toThrow(/can't be used/);
  });

  it('refuses arguments over the size bound, at the bound and one past it', async () => {
    const { conn } = stub();
    const echo = (await conn.tools()).tools.find((t) => t.name === 'slow')!;
    const overhead = JSON.stringify({ ms: 1, pad: '' }).length;
    const atLimit = { ms: 1, pad: 'x'.repeat(LIMITS.mcp.argumentsBytes - overhead) };
    expect(() => validateArguments(echo, atLimit)).not.toThrow();
    expect(() => validateArguments(echo, { ...atLimit, pad: `${atLimit.pad}x` })).toThrow(/bytes/);
  });
});

describe('results', () => {
  it('returns an isError result as a failed tool call', async () => {
    const { conn } = stub();
    await expect(conn.call('fail', {})).resolves.toMatchObject({ isError: true, parts: [{ type: 'text', text: 'it went wrong' }] });
  });

  it('reports progress', async () => {
    const { conn } = stub();
    const seen: number[] = [];
    await conn.call('slow', { ms: 200 }, { onProgress: (p) => seen.push(p.progress) });
    expect(seen.slice(0, 3)).toEqual([1, 2, 3]);
  });
});

describe('a flood of refreshes', () => {
  it('reads the server once for refreshes close together, and again after the minimum interval', async () => {
    const { conn, log } = stub();
    await conn.tools();
    await Promise.all(Array.from({ length: 50 }, () => conn.tools(true)));
    const lists = () => stubLog(log).filter((e) => e.event === 'list').length;
    expect(lists()).toBe(1);
    await until(async () => (await conn.tools(true), lists() === 2), LIMITS.mcp.refreshMinMs + 3_000, 'a refresh after the interval');
  });
});

describe('list_changed', () => {
  it('reads the list again when the server says it changed', async () => {
    const { conn, log } = stub();
    expect((await conn.tools()).tools.map((t) => t.name)).not.toContain('added-1');
    await conn.call('add-tool', {});
    await until(async () => (await conn.tools()).tools.some((t) => t.name === 'added-1'), 5_000, 'the new tool');
    expect(stubLog(log).filter((e) => e.event === 'list').length).toBeGreaterThanOrEqual(2);
  });
});

describe('lifecycle', () => {
  it('starts on first use, not before', async () => {
    const { conn, log } = stub();
    expect(conn.pid).toBeNull();
    expect(stubLog(log)).toEqual([]);
    await conn.call('echo', { message: 'hi' });
    expect(conn.pid).not.toBeNull();
  });

  it('keeps at most maxConcurrent calls in flight; the others wait and none is lost', async () => {
    const { conn, log } = stub({}, { maxConcurrent: 2 });
    const results = await Promise.all(Array.from({ length: 6 }, () => conn.call('slow', { ms: 100 })));
    expect(results.every((r) => r.parts[0]?.type === 'text' && r.parts[0].text === 'slept')).toBe(true);
    const actives = stubLog(log)
      .filter((e) => e.event === 'call')
      .map((e) => e.active as number);
    expect(actives).toHaveLength(6);
    expect(Math.max(...actives)).toBe(2);
  });

  it('fails the call in flight when the server crashes, with a clear error, then restarts it after a backoff', async () => {
    const { conn, log } = stub();
    await conn.call('echo', { message: 'first' });
    const firstPid = conn.pid!;
    const err = (await conn.call('crash', {}).catch((e: unknown) => e)) as McpCallError;
    expect(err).toBeInstanceOf(McpCallError);
    // Interrupted, not unavailable: the call was sent, so the tool may have done its work.
    expect(err.code).toBe('interrupted');
    expect(err.message).toMatch(/"stub" stopped.*starts again/);
    const restartedAt = Date.now();
    await expect(conn.call('echo', { message: 'again' })).resolves.toMatchObject({ parts: [{ type: 'text', text: 'echo: again' }] });
    expect(Date.now() - restartedAt).toBeGreaterThanOrEqual(LIMITS.mcp.restartBackoff.minMs - 50);
    expect(conn.pid).not.toBe(firstPid);
    await until(() => !alive(firstPid), 5_000, 'the crashed launcher to be gone');
    expect(stubLog(log).filter((e) => e.event === 'started')).toHaveLength(2);
  });

  it('stops the server when idle, and starts it again on the next call', async () => {
    const { conn } = stub({}, {});
    const idle = connect(conn.spec, { idleStopMs: 150 });
    open.push(idle);
    await idle.call('echo', { message: 'a' });
    const pid = idle.pid!;
    await until(() => !idle.connected, 5_000, 'the idle stop');
    await until(() => !alive(pid), 5_000, 'the launcher to exit');
    await expect(idle.call('echo', { message: 'b' })).resolves.toMatchObject({ isError: false });
  });

  it('a connection disposed while its server starts leaves no server running', async () => {
    const { conn, log } = stub();
    const starting = conn.tools();
    await conn.dispose();
    await starting;
    await until(() => stubLog(log).some((e) => e.event === 'started'), 5_000, 'the start to have happened');
    const pid = stubLog(log).find((e) => e.event === 'started')!.pid as number;
    await until(() => !alive(pid), 5_000, 'the server to be ended');
    expect(conn.connected).toBe(false);
  });

  it('ends a server that ignores stdin EOF when the connection closes (the launcher ends it)', async () => {
    const { conn, log } = stub({ STUB_IGNORE_EOF: '1' });
    await conn.call('echo', { message: 'x' });
    const serverPid = stubLog(log).find((e) => e.event === 'started')!.pid as number;
    expect(alive(serverPid)).toBe(true);
    await conn.dispose();
    await until(() => !alive(serverPid), 5_000, 'the server to be ended');
  });
});
