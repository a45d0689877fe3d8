import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { AttachButton } from '@/components/files/attach-control';
import { SentFiles } from '@/components/files/sent-files';
import type { Attachments } from '@/components/files/use-attachments';

/*
 * The attach mark is drawn, not an emoji: Debian's Chromium without an emoji font showed 📎 as an empty box, and at
 * phone width the composer's Attach button shows nothing but that mark (its word is hidden below the sm breakpoint).
 */
describe('the attach mark', () => {
  it('is an inline SVG hidden from screen readers in the composer’s button, which keeps its name', () => {
    const html = renderToStaticMarkup(createElement(AttachButton, { attachments: { add: () => {} } as unknown as Attachments }));
    expect(html).toMatch(/<button[^>]*aria-label="Attach files"/);
    expect(html).toMatch(/<svg[^>]*aria-hidden="true"/);
    expect(html).not.toContain('📎');
  });

  it('is an inline SVG beside each file sent with a message', () => {
    const html = renderToStaticMarkup(
      createElement(SentFiles, { attachments: [{ fileId: 'f1', name: 'a.txt', size: 1, mediaType: 'text/plain', revision: 1, deleted: false }] }),
    );
    expect(html).toMatch(/<li[^>]*><svg[^>]*aria-hidden="true"/);
    expect(html).not.toContain('📎');
  });
});
