import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { AccountLabel, displayName } from '@/components/shell/account-label';

const render = (name: string | null, email: string, testId = true) => renderToStaticMarkup(createElement(AccountLabel, { name, email, testId }));
const byTestId = (html: string, id: string) => new RegExp(`<span[^>]*data-testid="${id}"[^>]*>([^<]*)</span>`).exec(html)?.[1];

describe('who is signed in, in the header', () => {
  it('shows the name with the email under it, both in the title, each line truncating', () => {
    const html = render('Ada Lovelace', 'ada@example.test');
    expect(byTestId(html, 'user-name')).toBe('Ada Lovelace');
    expect(byTestId(html, 'user-email')).toBe('ada@example.test');
    expect(html.indexOf('user-name')).toBeLessThan(html.indexOf('user-email'));
    expect(html).toContain('title="Ada Lovelace\nada@example.test"');
    expect(html.match(/class="block truncate/g)).toHaveLength(2);
  });

  it('shows the email alone when no name was given (stored as empty) or the name is only spaces', () => {
    for (const name of ['', '   ', null]) {
      const html = render(name, 'bo@example.test');
      expect(byTestId(html, 'user-name')).toBeUndefined();
      expect(byTestId(html, 'user-email')).toBe('bo@example.test');
      expect(html).toContain('title="bo@example.test"');
    }
    expect(displayName('  Bo  ')).toBe('Bo');
  });

  it('keeps a name at the 80-character limit whole, in CJK and emoji too, as text (never markup)', () => {
    for (const [name, shown] of [
      ['W'.repeat(80), 'W'.repeat(80)],
      ['名'.repeat(80), '名'.repeat(80)],
      ['🎻'.repeat(80), '🎻'.repeat(80)],
      ['<b>Eve</b>', '&lt;b&gt;Eve&lt;/b&gt;'],
    ]) {
      const html = render(name!, 'x@example.test');
      expect(byTestId(html, 'user-name')).toBe(shown);
      expect(html).not.toContain('<b>');
    }
  });

  it('puts the test ids on one copy only: the menu panel’s copy has none', () => {
    const html = render('Ada', 'ada@example.test', false);
    expect(html).not.toContain('data-testid');
    expect(html).toContain('ada@example.test');
  });
});
