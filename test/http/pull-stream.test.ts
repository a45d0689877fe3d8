import { describe, expect, it } from 'vitest';
import { downloadResponse } from '@/server/http/download';
import { pullStream } from '@/server/http/pull-stream';

const decode = (chunks: Uint8Array[]) => new TextDecoder().decode(Buffer.concat(chunks));

describe('pullStream: a download read one chunk per pull', () => {
  it('sends text as UTF-8 (ASCII, CJK, emoji) and bytes as they are, in order', async () => {
    async function* chunks() {
      yield 'plain, ';
      yield '漢字, ';
      yield Uint8Array.from([0xf0, 0x9f, 0x98, 0x80]); // 😀 as raw bytes
      yield ' 👩‍💻';
    }
    const text = await new Response(pullStream(chunks())).text();
    expect(text).toBe('plain, 漢字, 😀 👩‍💻');
  });

  it('reads nothing ahead of the reader: the next chunk is made only when it is pulled', async () => {
    const made: number[] = [];
    async function* chunks() {
      for (let i = 0; i < 5; i++) {
        made.push(i);
        yield `chunk ${i};`;
      }
    }
    const reader = pullStream(chunks()).getReader();
    const first = await reader.read();
    expect(decode([first.value!])).toBe('chunk 0;');
    // What must not happen: the stream filling a queue from the generator while nobody reads.
    await new Promise((resolve) => setImmediate(resolve));
    expect(made).toEqual([0]);
    await reader.read();
    expect(made).toEqual([0, 1]);
    await reader.cancel();
  });

  it('a failed read errors the stream (a cut body), never a clean end', async () => {
    async function* chunks() {
      yield 'first part;';
      throw new Error('store went away');
    }
    const reader = pullStream(chunks()).getReader();
    expect(decode([(await reader.read()).value!])).toBe('first part;');
    await expect(reader.read()).rejects.toThrow('store went away');
  });

  it('a reader that goes away ends the generator, so its cleanup runs', async () => {
    let cleanedUp = false;
    async function* chunks() {
      try {
        for (let i = 0; ; i++) yield `row ${i}\n`;
      } finally {
        cleanedUp = true;
      }
    }
    const reader = pullStream(chunks()).getReader();
    await reader.read();
    await reader.cancel();
    expect(cleanedUp).toBe(true);
  });
});

describe('downloadResponse', () => {
  it('is an attachment that is never cached or sniffed, with the body streamed', async () => {
    async function* chunks() {
      yield 'a,b\r\n';
    }
    const res = downloadResponse({ contentType: 'text/csv; charset=utf-8', contentDisposition: 'attachment; filename="x.csv"', chunks: chunks() });
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="x.csv"');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toBe('a,b\r\n');
  });
});
