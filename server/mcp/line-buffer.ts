import 'server-only';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';

/**
 * A stdio transport's read buffer in linear time. The SDK's own joins every chunk onto the whole buffer and searches
 * all of it for a newline each time, so a message near the size bound costs time that grows with the square of its
 * size (seconds of a blocked event loop for 16 MiB). This one searches each chunk once and joins a line's parts once.
 * Same contract as the SDK's ReadBuffer: `append` throws "ReadBuffer exceeded maximum size" past `maxBytes` of a
 * line not yet ended (connection.ts reads that text), `readMessage` returns the next whole message or null.
 */
export class LineBuffer {
  private parts: Buffer[] = [];
  private partBytes = 0;
  private lines: Buffer[] = [];

  constructor(private readonly maxBytes: number) {}

  append(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      if (this.partBytes + nl - start > this.maxBytes) return this.overflow();
      this.parts.push(chunk.subarray(start, nl));
      this.lines.push(this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts));
      this.parts = [];
      this.partBytes = 0;
      start = nl + 1;
    }
    if (start === chunk.length) return;
    if (this.partBytes + chunk.length - start > this.maxBytes) return this.overflow();
    this.parts.push(chunk.subarray(start));
    this.partBytes += chunk.length - start;
  }

  readMessage(): JSONRPCMessage | null {
    const line = this.lines.shift();
    if (line === undefined) return null;
    return deserializeMessage(line.toString('utf8').replace(/\r$/, ''));
  }

  clear(): void {
    this.parts = [];
    this.partBytes = 0;
    this.lines = [];
  }

  private overflow(): never {
    this.clear();
    throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBytes} bytes`);
  }
}
