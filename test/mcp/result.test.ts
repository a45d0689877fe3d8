import { describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { toCallResult } from '@/server/mcp/result';
import { canonicalJson, schemaHash, toToolInfo } from '@/server/mcp/tool-info';
import { parseSecretLines } from '@/components/mcp/secret-lines';

// What a run receives of a tools/call result, at its bounds: never more text than the limit, never a split
// character, never image bytes, and the cut always marked.

const MAX = LIMITS.mcp.result.textChars;
const text = (t: string) => ({ type: 'text', text: t });

describe('a call result', () => {
  it('keeps text at the limit whole and unmarked, and cuts one past it, marked', () => {
    expect(toCallResult({ content: [text('a'.repeat(MAX))] })).toMatchObject({ truncated: false, parts: [{ text: 'a'.repeat(MAX) }] });
    const over = toCallResult({ content: [text('a'.repeat(MAX + 1))] });
    expect(over.truncated).toBe(true);
    expect((over.parts[0] as { text: string }).text).toHaveLength(MAX);
  });

  it('counts text across parts and embedded resources together', () => {
    const half = 'b'.repeat(MAX / 2);
    const res = toCallResult({ content: [text(half), { type: 'resource', resource: { uri: 'file:///x', text: `${half}!` } }] });
    expect(res.truncated).toBe(true);
    expect(res.parts[1]).toMatchObject({ type: 'resource', uri: 'file:///x', text: half });
  });

  it('never splits an emoji or a CJK character at the cut', () => {
    const emoji = toCallResult({ content: [text(`${'a'.repeat(MAX - 1)}🎉`)] });
    expect((emoji.parts[0] as { text: string }).text).toBe('a'.repeat(MAX - 1));
    const cjk = toCallResult({ content: [text('世'.repeat(MAX + 1))] });
    expect((cjk.parts[0] as { text: string }).text).toBe('世'.repeat(MAX));
  });

  it(`keeps at most ${LIMITS.mcp.result.parts} parts`, () => {
    const at = toCallResult({ content: Array.from({ length: LIMITS.mcp.result.parts }, () => text('x')) });
    expect(at).toMatchObject({ truncated: false });
    const over = toCallResult({ content: Array.from({ length: LIMITS.mcp.result.parts + 1 }, () => text('x')) });
    expect(over.parts).toHaveLength(LIMITS.mcp.result.parts);
    expect(over.truncated).toBe(true);
  });

  it('turns images, audio and links into typed references without their bytes, and refuses odd MIME types', () => {
    const data = Buffer.alloc(300, 1).toString('base64');
    const res = toCallResult({
      content: [
        { type: 'image', data, mimeType: 'image/png' },
        { type: 'image', data, mimeType: 'text/html"><script>' },
        { type: 'audio', data, mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'https://example.test/a', name: 'A', mimeType: 'text/plain' },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: data, mimeType: 'application/octet-stream' } },
      ],
      isError: true,
    });
    expect(res.isError).toBe(true);
    expect(res.parts).toEqual([
      { type: 'image', mimeType: 'image/png', byteLength: 300 },
      { type: 'image', mimeType: 'application/octet-stream', byteLength: 300 },
      { type: 'text', text: '[audio: audio/wav, 300 bytes, not shown]' },
      { type: 'resource', uri: 'https://example.test/a', name: 'A', mimeType: 'text/plain' },
      { type: 'resource', uri: 'file:///b.bin', mimeType: 'application/octet-stream' },
    ]);
    expect(JSON.stringify(res)).not.toContain(data);
  });

  it('keeps structured content only whole and within the remaining budget', () => {
    expect(toCallResult({ content: [], structuredContent: { a: 1 } })).toMatchObject({ structuredContent: { a: 1 }, truncated: false });
    const big = toCallResult({ content: [], structuredContent: { a: 'x'.repeat(MAX) } });
    expect(big.structuredContent).toBeUndefined();
    expect(big.truncated).toBe(true);
  });
});

describe('a listed tool', () => {
  const schema = { type: 'object', properties: { q: { type: 'string' } } };
  it('hashes the same whatever order the server sent keys in, and differently when anything changes', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
    const a = schemaHash({ name: 't', description: 'd', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } });
    const b = schemaHash({ name: 't', description: 'd', inputSchema: { properties: { q: { type: 'string' } }, type: 'object' } });
    expect(a).toBe(b);
    expect(schemaHash({ name: 't', description: 'd2', inputSchema: schema })).not.toBe(a);
    expect(schemaHash({ name: 't', description: 'd', inputSchema: { ...schema, required: ['q'] } })).not.toBe(a);
  });

  it('is left out with a name the spec forbids, a non-object schema, or a schema over the size bound', () => {
    expect(toToolInfo({ name: 'a'.repeat(128), inputSchema: schema })).not.toBeNull();
    expect(toToolInfo({ name: 'a'.repeat(129), inputSchema: schema })).toBeNull();
    expect(toToolInfo({ name: 'has space', inputSchema: schema })).toBeNull();
    expect(toToolInfo({ name: '世界', inputSchema: schema })).toBeNull();
    expect(toToolInfo({ name: 'ok', inputSchema: { type: 'string' } })).toBeNull();
    const pad = 'x'.repeat(LIMITS.mcp.tools.schemaBytes);
    expect(toToolInfo({ name: 'big', inputSchema: { type: 'object', description: pad } })).toBeNull();
  });

  it('cuts a description at its limit, in code points', () => {
    const info = toToolInfo({ name: 'd', description: '🎉'.repeat(LIMITS.mcp.tools.descriptionChars + 1), inputSchema: schema })!;
    expect([...info.description]).toHaveLength(LIMITS.mcp.tools.descriptionChars);
  });
});

describe('secret lines typed in a form', () => {
  it('reads Name: value and NAME=value lines, and names the first line without its separator', () => {
    expect(parseSecretLines('Authorization: Bearer a:b\n\nX-Team: 世界 🎉\r\n', ':')).toEqual({ ok: true, value: { Authorization: 'Bearer a:b', 'X-Team': '世界 🎉' } });
    expect(parseSecretLines('A=1\nB=x=y', '=')).toEqual({ ok: true, value: { A: '1', B: 'x=y' } });
    expect(parseSecretLines('A=1\nnope', '=')).toEqual({ ok: false, line: 2 });
    expect(parseSecretLines('=value', '=')).toEqual({ ok: false, line: 1 });
  });
});
