import { beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import type { FetchedPage } from '@/server/web/fetch-page';
import { htmlToMarkdown, readablePage, type ReadablePage } from '@/server/web/readable';
import { ARTICLE } from './stub-server';

// What the model reads of a page (ADR 060). What must not happen: navigation, ads, scripts or styles reaching the
// model as the article; a framework tag surviving from the page's text; a script or data link; more than the bound.

const page = (body: string, mediaType: FetchedPage['mediaType'] = 'text/html', truncated = false): FetchedPage => ({
  url: new URL('https://coast.example/guides/pools?session=abc'),
  status: 200,
  mediaType,
  charset: 'utf-8',
  body: new TextEncoder().encode(body),
  truncated,
});

describe('an HTML page as Markdown', () => {
  let read: ReadablePage;
  beforeAll(async () => {
    read = await readablePage(page(ARTICLE));
  });

  it('keeps the article, with its title', () => {
    expect(read.title).toBe('Tide pools of the north coast');
    expect(read.text).toContain('Tide pools form where the sea leaves water behind');
    expect(read.text).toContain('The best time to visit is an hour before the lowest tide.');
  });

  it('drops the navigation, the ads, the footer, scripts and styles', () => {
    for (const gone of ['NAV-HOME-LINK', 'NAV-SHOP-LINK', 'AD-TEXT', 'FOOTER-TEXT', 'TRACKER-SCRIPT-TEXT', 'INLINE-SCRIPT-TEXT', 'color: red']) {
      expect(read.text, gone).not.toContain(gone);
    }
  });

  it('makes links and images absolute against the page, and drops script links', () => {
    expect(read.text).toContain('[tide tables](https://coast.example/guides/tides)');
    expect(read.text).toContain('[park rules](https://example.org/rules)');
    expect(read.text).toContain('![A green anemone](https://coast.example/img/anemone.png)');
    expect(read.text).not.toContain('javascript:');
  });

  it('defuses framework tags written in the page', () => {
    expect(read.text).not.toMatch(/<\/?ensemble/);
    expect(read.text).toContain('&lt;ensemble-request');
  });

  it('a page that is not an article still gives its text, without scripts', async () => {
    const short = await readablePage(page('<html><head><title>Tiny</title></head><body><p>Just a line.</p><script>SCRIPT</script></body></html>'));
    expect(short.text).toContain('Just a line.');
    expect(short.text).not.toContain('SCRIPT');
  });
});

describe('the output bound', () => {
  const max = LIMITS.web.outputChars;
  it.each([
    ['ascii', 'a'],
    ['cjk', '界'],
    ['emoji', '😀'],
  ])('%s text of exactly the bound is whole; one character more is cut and said', async (_kind, unit) => {
    const at = await readablePage(page(unit.repeat(max), 'text/plain'));
    expect(at.truncated).toBe(false);
    expect([...at.text].length).toBe(max);
    const over = await readablePage(page(unit.repeat(max + 1), 'text/plain'));
    expect(over.truncated).toBe(true);
    expect(over.text).toBe(unit.repeat(max));
  });
});

describe('JSON', () => {
  it('is pretty-printed; a cut or broken body is shown as text, said so when broken', async () => {
    expect((await readablePage(page('{"a":1}', 'application/json'))).text).toBe('{\n  "a": 1\n}');
    expect((await readablePage(page('{"a":', 'application/json', true))).text).toBe('{"a":');
    expect((await readablePage(page('{"a":', 'application/json'))).text).toBe('(Not valid JSON; shown as text.)\n{"a":');
  });
});

describe('a large page is converted out of the server’s process', () => {
  const para = '<div class="c"><p>Some paragraph text with <a href="/l">a link</a> and more words to fill the line.</p></div>\n';
  const big = `<html><head><title>Big</title></head><body><article>${para.repeat(Math.floor((1024 * 1024) / para.length))}</article></body></html>`;

  it('a 1 MiB article never stalls the event loop, and what comes back is within the bound', async () => {
    let last = performance.now();
    let longestGap = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 10);
    try {
      const read = await readablePage(page(big));
      expect(read.truncated).toBe(true);
      expect([...read.text].length).toBeLessThanOrEqual(LIMITS.web.outputChars);
      expect(read.text).toContain('[a link](https://coast.example/l)');
    } finally {
      clearInterval(ticker);
    }
    // Parsing it here would hold the loop for seconds (measured: 5–15 s on this machine).
    expect(longestGap).toBeLessThan(1_000);
  }, 30_000);

  it('past its time bound the converter is killed and the fetch is a clear refusal', async () => {
    await expect(htmlToMarkdown(big, new URL('https://coast.example/'), undefined, { timeoutMs: 100, memoryMb: 256 })).rejects.toThrow(/could not be read within 0.1 s/);
  });

  it('the run’s abort kills the converter', async () => {
    const controller = new AbortController();
    const reading = htmlToMarkdown(big, new URL('https://coast.example/'), controller.signal);
    setTimeout(() => controller.abort(), 50);
    await expect(reading).rejects.toThrow(/cancelled/);
  });
});
