import 'server-only';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { LIMITS } from '@/lib/limits';
import { truncateText } from '@/lib/text';
import { neutralizeTags } from '@/server/trust/neutralize-tags';
import type { FetchedPage } from './fetch-page';

/**
 * What the model reads of a fetched page (ADR 060): an HTML page's article as Markdown (Mozilla's Readability on a
 * linkedom document — the lighter DOM, no script execution, no resource loading — then turndown), JSON pretty-printed,
 * text as it is. All of it is the page's text, so untrusted: framework tag openings are defused, and it is cut to
 * LIMITS.web.outputChars. Links are made absolute against the page's URL; script links and data URLs are dropped.
 */

const W = LIMITS.web;
/** Readability gives up past this many elements (a bounded body can still be a deep tree); the page's text is used instead. */
const MAX_ELEMENTS = 50_000;

export type ReadablePage = { title: string | undefined; text: string; truncated: boolean };

export function readablePage(page: FetchedPage): ReadablePage {
  const source = decode(page.body, page.charset, page.truncated);
  let title: string | undefined;
  let text: string;
  switch (page.mediaType) {
    case 'text/html':
    case 'application/xhtml+xml':
      ({ title, text } = htmlToMarkdown(source, page.url));
      break;
    case 'application/json':
      text = prettyJson(source, page.truncated);
      break;
    default:
      text = source;
  }
  const cut = truncateText(text, W.outputChars * 4, W.outputChars);
  return {
    title: title ? neutralizeTags(oneLine(title).slice(0, 300)) : undefined,
    text: neutralizeTags(cut.text),
    truncated: page.truncated || cut.truncated,
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

function htmlToMarkdown(html: string, base: URL): { title: string | undefined; text: string } {
  const { document } = parseHTML(html);
  let article: { title?: string | null; content?: string | null } | null = null;
  try {
    article = new Readability(document as unknown as Document, { maxElemsToParse: MAX_ELEMENTS, charThreshold: 200 }).parse();
  } catch {
    article = null;
  }
  const markdown = article?.content ? turndown(base).turndown(article.content) : '';
  if (markdown.trim()) return { title: article?.title ?? undefined, text: markdown.trim() };
  // Not an article (a short page, a listing): its body's text, without scripts and styles.
  const { document: whole } = parseHTML(html);
  for (const node of whole.querySelectorAll('script, style, noscript, template, svg, iframe')) node.remove();
  const body = whole.querySelector('body') ?? whole.documentElement;
  const title = whole.querySelector('title')?.textContent ?? undefined;
  return { title: title || undefined, text: body ? turndown(base).turndown(body.innerHTML ?? '').trim() : '' };
}

function turndown(base: URL): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  service.remove(['script', 'style', 'noscript', 'iframe', 'form', 'button', 'select', 'textarea', 'input', 'object', 'embed']);
  service.addRule('absolute-links', {
    filter: (node) => node.nodeName === 'A' && Boolean(node.getAttribute('href')),
    replacement: (content, node) => {
      const href = absolute((node as HTMLElement).getAttribute('href')!, base);
      const label = content.trim();
      if (!href) return label;
      return label ? `[${label}](${href})` : '';
    },
  });
  service.addRule('absolute-images', {
    filter: 'img',
    replacement: (_content, node) => {
      const src = absolute((node as HTMLElement).getAttribute('src') ?? '', base);
      const alt = oneLine((node as HTMLElement).getAttribute('alt') ?? '').slice(0, 200);
      return src ? `![${alt}](${src})` : alt;
    },
  });
  return service;
}

/** An http(s) link made absolute, or null (script, data and other schemes are dropped). */
function absolute(href: string, base: URL): string | null {
  try {
    const url = new URL(href, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.href.replace(/[()\s]/g, (ch) => encodeURIComponent(ch));
  } catch {
    return null;
  }
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
