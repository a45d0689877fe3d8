import { describe, expect, it } from 'vitest';
import { LineBuffer } from '@/server/mcp/line-buffer';
import { openTransport } from '@/server/mcp/transport';
import { tempDir } from './support';

const msg = (id: number, text: string) => ({ jsonrpc: '2.0' as const, id, result: { text } });
const wire = (...messages: unknown[]) => Buffer.from(messages.map((m) => `${JSON.stringify(m)}\n`).join(''), 'utf8');

function drain(buffer: LineBuffer): unknown[] {
  const out: unknown[] = [];
  for (let m = buffer.readMessage(); m !== null; m = buffer.readMessage()) out.push(m);
  return out;
}

describe('LineBuffer (the stdio read buffer in linear time)', () => {
  it('reads messages split anywhere across chunks, several in one chunk, CRLF, and multi-byte text cut mid-character', () => {
    const messages = [msg(1, 'plain ASCII'), msg(2, '漢字かな交じり'), msg(3, 'emoji 👩‍👩‍👧 🚀')];
    const bytes = Buffer.concat([wire(messages[0]), Buffer.from(`${JSON.stringify(messages[1])}\r\n`), wire(messages[2])]);
    // Every split point, including inside a CJK character and inside an emoji's surrogate-free UTF-8 bytes.
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      const buffer = new LineBuffer(1_000);
      buffer.append(bytes.subarray(0, cut));
      const first = drain(buffer);
      buffer.append(bytes.subarray(cut));
      expect([...first, ...drain(buffer)]).toEqual(messages);
    }
  });

  it('takes a line of exactly the bound and refuses one byte more, however it arrives, and keeps nothing of it', () => {
    const max = 64;
    const exact = Buffer.alloc(max, 0x20); // JSON may be padded with spaces: a valid message once ended
    exact.write('{"jsonrpc":"2.0","id":1,"result":{}}');
    const atLimit = new LineBuffer(max);
    atLimit.append(exact.subarray(0, 10));
    atLimit.append(Buffer.concat([exact.subarray(10), Buffer.from('\n')]));
    expect(drain(atLimit)).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);

    for (const chunks of [[Buffer.alloc(max + 1, 0x20)], [Buffer.alloc(max, 0x20), Buffer.from(' ')], [Buffer.alloc(max + 1, 0x20), Buffer.from('\n')]]) {
      const past = new LineBuffer(max);
      // What must not happen: a line past the bound buffered on (or handed on) instead of refused.
      expect(() => chunks.forEach((c) => past.append(c))).toThrow(/ReadBuffer exceeded maximum size of 64 bytes/);
      expect(past.readMessage()).toBeNull();
    }
  });

  it('refuses a line past the bound even when it ends in the same chunk', () => {
    const buffer = new LineBuffer(8);
    expect(() => buffer.append(Buffer.from(`${'x'.repeat(9)}\n`))).toThrow(/exceeded/);
  });

  it('is what a stdio transport reads with (the SDK field it replaces still exists)', () => {
    const opened = openTransport(
      { id: 'line-buffer-test', transport: 'stdio', command: 'true', args: [], env: {}, ownerId: null } as never,
      { dataDir: tempDir('line-buffer') },
    );
    expect((opened.transport as unknown as { _readBuffer: unknown })._readBuffer).toBeInstanceOf(LineBuffer);
  });
});
