import { describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import type { FetchedPage } from '@/server/web/fetch-page';
import { readablePage } from '@/server/web/readable';
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
  const read = readablePage(page(ARTICLE));

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

  it('a page that is not an article still gives its text, without scripts', () => {
    const short = readablePage(page('<html><head><title>Tiny</title></head><body><p>Just a line.</p><script>SCRIPT</script></body></html>'));
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
  ])('%s text of exactly the bound is whole; one character more is cut and said', (_kind, unit) => {
    const at = readablePage(page(unit.repeat(max), 'text/plain'));
    expect(at.truncated).toBe(false);
    expect([...at.text].length).toBe(max);
    const over = readablePage(page(unit.repeat(max + 1), 'text/plain'));
    expect(over.truncated).toBe(true);
    expect(over.text).toBe(unit.repeat(max));
  });
});

describe('JSON', () => {
  it('is pretty-printed; a cut or broken body is shown as text, said so when broken', () => {
    expect(readablePage(page('{"a":1}', 'application/json')).text).toBe('{\n  "a": 1\n}');
    expect(readablePage(page('{"a":', 'application/json', true)).text).toBe('{"a":');
    expect(readablePage(page('{"a":', 'application/json')).text).toBe('(Not valid JSON; shown as text.)\n{"a":');
  });
});
