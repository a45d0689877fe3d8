import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MessageItem } from '@/components/conversations/message-item';
import { buildTimeline } from '@/components/conversations/timeline';
import { SentFiles } from '@/components/files/sent-files';
import type { Message } from '@/lib/types/conversation';
import type { ApiAttachment } from '@/lib/types/file';

const live = (fileId: string, name: string, size: number, mediaType = 'text/plain', revision = 1): ApiAttachment => ({ fileId, name, size, mediaType, revision, deleted: false });
const gone = (name: string, size: number, mediaType = 'text/csv'): ApiAttachment => ({ fileId: null, name, size, mediaType, revision: null, deleted: true });
const render = (attachments: ApiAttachment[]) => renderToStaticMarkup(createElement(SentFiles, { attachments }));

describe('the files sent with a message or request', () => {
  it('lists each in order: its name opens the preview, with its size in binary units, its type and a download of that revision', () => {
    const html = render([live('f1', 'notes.md', 26_214_400, 'text/markdown', 3), live('f2', '報告 📊.txt', 1536)]);
    expect(html).toMatch(/^<ul aria-label="Attached files"/);
    const items = html.split('<li').slice(1);
    expect(items).toHaveLength(2);
    expect(items[0]).toMatch(/<button type="button"[^>]*>notes\.md<\/button>/);
    expect(items[0]).toContain('25 MiB · text/markdown');
    expect(items[0]).toContain('href="/api/v1/files/f1/content?revision=3" download=""');
    expect(items[0]).toContain('aria-label="Download notes.md"');
    expect(items[1]).toMatch(/<button type="button"[^>]*>報告 📊\.txt<\/button>/);
    expect(items[1]).toContain('1.5 KiB · text/plain');
    expect(html).not.toContain('MB');
  });

  it('shows a file deleted since by its name, marked deleted, with nothing to open or download', () => {
    const html = render([gone('data.csv', 8), live('f3', 'kept.txt', 1)]);
    const [deleted, kept] = html.split('<li').slice(1);
    expect(deleted).toContain('data.csv');
    expect(deleted).toContain('>deleted<');
    expect(deleted).not.toContain('<button');
    expect(deleted).not.toContain('href=');
    expect(kept).toContain('href="/api/v1/files/f3/content?revision=1"');
  });

  it('renders a name a person wrote as text, never as HTML', () => {
    const html = render([live('f4', '<img src=x onerror=alert(1)>.txt', 1), gone('<b>x</b>', 2)]);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;.txt');
  });

  it('is nothing when nothing was attached', () => {
    expect(render([])).toBe('');
  });
});

describe('a chat message with files', () => {
  const message = (id: string, text: string, attachments?: ApiAttachment[]): Message => ({ id, role: 'user', text, ...(attachments ? { attachments } : {}) });

  it('carries its files into the timeline and shows them under the person’s bubble; a message without any shows no list', () => {
    const items = buildTimeline([message('run:r1', 'see attached', [live('f1', 'a.txt', 10)]), message('run:r2', 'no files')]);
    expect(items[0]).toMatchObject({ kind: 'user', attachments: [live('f1', 'a.txt', 10)] });
    expect(items[1]).not.toHaveProperty('attachments');
    const withFiles = renderToStaticMarkup(createElement(MessageItem, { item: items[0]!, agentName: 'Helper' }));
    expect(withFiles).toContain('aria-label="Attached files"');
    expect(withFiles).toContain('href="/api/v1/files/f1/content?revision=1"');
    const without = renderToStaticMarkup(createElement(MessageItem, { item: items[1]!, agentName: 'Helper' }));
    expect(without).not.toContain('Attached files');
  });
});
