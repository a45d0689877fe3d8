import 'server-only';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { LIMITS } from '@/lib/limits';
import { truncateText } from '@/lib/text';
import { neutralizeTags } from '@/server/trust/neutralize-tags';
import type { FetchedPage } from './fetch-page';

/**
 * What the model reads of a fetched page (ADR 060): an HTML page's article as Markdown, JSON pretty-printed, text as
 * it is. HTML is converted by scripts/web-readable.mjs (Mozilla's Readability on a linkedom document — no script
 * execution, no resource loading — then turndown; links made absolute, script and data links dropped) in a separate
 * Node process with a heap cap and a time limit: parsing a 2 MiB page costs seconds of CPU, which must not stall the
 * server's event loop. All of it is the page's text, so untrusted: framework tag openings are defused, and it is cut
 * to LIMITS.web.outputChars.
 */

const W = LIMITS.web;

export type ReadablePage = { title: string | undefined; text: string; truncated: boolean };

export class WebReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebReadError';
  }
}

export async function readablePage(page: FetchedPage, signal?: AbortSignal): Promise<ReadablePage> {
  const source = decode(page.body, page.charset, page.truncated);
  let title: string | undefined;
  let text: string;
  let cut = false;
  switch (page.mediaType) {
    case 'text/html':
    case 'application/xhtml+xml':
      ({ title, text, truncated: cut } = await htmlToMarkdown(source, page.url, signal));
      break;
    case 'application/json':
      text = prettyJson(source, page.truncated);
      break;
    default:
      text = source;
  }
  const bounded = truncateText(text, W.outputChars * 4, W.outputChars);
  return {
    title: title ? neutralizeTags(title.replace(/\s+/g, ' ').trim().slice(0, 300)) : undefined,
    text: neutralizeTags(bounded.text),
    truncated: page.truncated || cut || bounded.truncated,
  };
}

/** A cut body may end inside a character: decoding as a stream leaves that partial character out. */
function decode(body: Uint8Array, charset: string | undefined, cut: boolean): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset ?? 'utf-8');
  } catch {
    // An unknown charset label: UTF-8 reads most of the web, and a wrong guess costs only odd characters.
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(body, { stream: cut });
}

function prettyJson(source: string, truncated: boolean): string {
  try {
    return JSON.stringify(JSON.parse(source), null, 2);
  } catch {
    // A cut body (or a server's broken JSON) is shown as the text it is.
    return truncated ? source : `(Not valid JSON; shown as text.)\n${source}`;
  }
}

/** The HTML converted in its own process; past the time or heap bound, or on the run's abort, that process is killed. */
export async function htmlToMarkdown(html: string, url: URL, signal: AbortSignal | undefined, bounds: { timeoutMs: number; memoryMb: number } = W.convert): Promise<{ title: string | undefined; text: string; truncated: boolean }> {
  const script = path.join(process.cwd(), 'scripts', 'web-readable.mjs');
  const child = spawn(process.execPath, [`--max-old-space-size=${bounds.memoryMb}`, script, url.href, String(W.outputChars)], { stdio: ['pipe', 'pipe', 'ignore'] });
  // The child cuts its text to outputChars; anything much past that is not its answer.
  const maxOut = W.outputChars * 4 + 4_096;
  let out = '';
  let overflow = false;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (data: string) => {
    out += data;
    if (out.length > maxOut) {
      overflow = true;
      child.kill('SIGKILL');
    }
  });
  const kill = () => child.kill('SIGKILL');
  const timer = setTimeout(kill, bounds.timeoutMs);
  signal?.addEventListener('abort', kill, { once: true });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, sig) => resolve({ code, signal: sig })));
  child.stdin.on('error', () => undefined); // EPIPE when the child was killed mid-write: its exit says why
  child.stdin.end(html);
  const result = await exited;
  clearTimeout(timer);
  signal?.removeEventListener('abort', kill);
  if (signal?.aborted) throw new WebReadError('The fetch was cancelled with the run.');
  if (overflow || result.code !== 0) {
    throw new WebReadError(result.signal === 'SIGKILL' && !overflow ? `The page could not be read within ${bounds.timeoutMs / 1000} s and the memory allowed.` : 'The page could not be read as HTML.');
  }
  try {
    const parsed = JSON.parse(out) as { title?: unknown; text?: unknown; truncated?: unknown };
    return { title: typeof parsed.title === 'string' ? parsed.title : undefined, text: typeof parsed.text === 'string' ? parsed.text : '', truncated: parsed.truncated === true };
  } catch {
    throw new WebReadError('The page could not be read as HTML.');
  }
}
