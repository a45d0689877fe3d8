/**
 * What every stub shares: the conversation logic (a question → a calculator call; a tool result → an answer that
 * quotes it), first-attempt bookkeeping for the variants that fail once, and small HTTP helpers. The stubs are plain
 * node:http servers with no dependency on the app, so the built app meets them exactly as it meets a real server.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The arithmetic in a person's question, e.g. "What is 6*7?" → "6*7" (the longest run of digits and operators). */
export function expressionIn(text: string): string {
  const runs = text.match(/[0-9][0-9+\-*/(). ]*[0-9)]/g) ?? [];
  const longest = runs.sort((a, b) => b.length - a.length)[0];
  if (!longest) throw new Error(`no arithmetic in ${JSON.stringify(text.slice(0, 200))}`);
  return longest.trim();
}

/** The answer a stub gives once it has the tool's results: it quotes each, so the test can find them. */
export const answerText = (results: string[]) => `The calculator says ${results.join(' and ')}. That is the answer.`;

/** Splits text into stream pieces of at most `size` characters (how servers send tokens). */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [''];
}

/** A rough token count, so usage figures are plausible and non-zero. */
export const tokensOf = (value: unknown) => Math.max(1, Math.ceil(JSON.stringify(value ?? '').length / 4));

/**
 * Remembers which requests it has seen, by their body's content: a variant that fails the first attempt of a call
 * (429, 5xx, a broken stream) answers the client's retry (the same body) normally.
 */
export class FirstAttempts {
  private readonly seen = new Set<string>();
  /** True the first time this body is seen. */
  first(body: unknown): boolean {
    const key = crypto.createHash('sha256').update(JSON.stringify(body)).digest('hex');
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }
}

export async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : {};
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes and waits for the socket to take the bytes, so each piece leaves as its own packet when the test wants. */
export function write(res: http.ServerResponse, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (res.write(text)) resolve();
    else res.once('drain', () => resolve());
  });
}

export type Stub = { url: string; close(): Promise<void>; server: http.Server };

/** Listens on a free loopback port. */
export async function listen(handler: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>): Promise<Stub> {
  const server = http.createServer((req, res) => {
    handler(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error), type: 'stub_error' } });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Hooks for the benchmark: `onFirstToken` runs as a stream's first content token is written (with the whole answer,
 * which names the run), `onChunk` for every streamed chunk; `tokenDelayMs` spaces the chunks as a model would.
 */
export type StubHooks = { onFirstToken?: (model: string, text: string) => void; onChunk?: () => void; tokenDelayMs?: number };
