// HTML → Markdown for the web tools (server/web/readable.ts, ADR 060), run as its own Node process with a heap cap
// and a time limit: parsing a large or hostile page takes seconds of CPU, which must not stall the server's event
// loop, and a page built to blow up the parser ends this process, not the server.
// Usage: node web-readable.mjs PAGE_URL MAX_CHARS with the page's HTML (UTF-8) on stdin; prints { title, text } as JSON.
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

const [pageUrl, maxCharsArg] = process.argv.slice(2);
const base = new URL(pageUrl);
const maxChars = Number(maxCharsArg);
/** Readability gives up past this many elements; the page's own text is used instead. */
const MAX_ELEMENTS = 50_000;

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const html = Buffer.concat(chunks).toString('utf8');

const oneLine = (text) => text.replace(/\s+/g, ' ').trim();

/** An http(s) link made absolute, or null (script, data and other schemes are dropped). */
function absolute(href, page) {
  try {
    const url = new URL(href, page);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.href.replace(/[()\s]/g, (ch) => encodeURIComponent(ch));
  } catch {
    return null;
  }
}

function turndown() {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  service.remove(['script', 'style', 'noscript', 'iframe', 'form', 'button', 'select', 'textarea', 'input', 'object', 'embed']);
  service.addRule('absolute-links', {
    filter: (node) => node.nodeName === 'A' && Boolean(node.getAttribute('href')),
    replacement: (content, node) => {
      const href = absolute(node.getAttribute('href'), base);
      const label = content.trim();
      if (!href) return label;
      return label ? `[${label}](${href})` : '';
    },
  });
  service.addRule('absolute-images', {
    filter: 'img',
    replacement: (_content, node) => {
      const src = absolute(node.getAttribute('src') ?? '', base);
      const alt = oneLine(node.getAttribute('alt') ?? '').slice(0, 200);
      return src ? `![${alt}](${src})` : alt;
    },
  });
  return service;
}

/**
 * The first blocks of `root` holding a little more than the text the model will read: converting a whole 2 MiB
 * article to Markdown only to cut it costs seconds. Descends through single wrappers, then keeps top-level blocks.
 */
function firstBlocks(root) {
  let node = root;
  while (node.children?.length === 1 && (node.textContent ?? '').length > maxChars) node = node.children[0];
  let chars = 0;
  let cut = false;
  for (const child of [...node.childNodes]) {
    if (cut) child.remove();
    else {
      chars += (child.textContent ?? '').length;
      if (chars > maxChars * 1.2) cut = true;
    }
  }
  return root;
}

let title;
let text = '';
try {
  const { document } = parseHTML(html);
  const article = new Readability(document, { maxElemsToParse: MAX_ELEMENTS, charThreshold: 200 }).parse();
  if (article?.content) {
    const { document: content } = parseHTML(`<!doctype html><html><body>${article.content}</body></html>`);
    text = turndown().turndown(firstBlocks(content.body).innerHTML).trim();
    title = article.title || undefined;
  }
} catch {
  text = '';
}
if (!text) {
  // Not an article (a short page, a listing) or too big for Readability: the body's text, without scripts and styles.
  const { document } = parseHTML(html);
  for (const node of document.querySelectorAll('script, style, noscript, template, svg, iframe')) node.remove();
  title = title ?? (document.querySelector('title')?.textContent || undefined);
  const body = document.querySelector('body') ?? document.documentElement;
  text = body ? turndown().turndown(firstBlocks(body).innerHTML ?? '').trim() : '';
}
const truncated = [...text].length > maxChars;
process.stdout.write(JSON.stringify({ title, text: truncated ? [...text].slice(0, maxChars).join('') : text, truncated }));
