import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { InboxEmpty } from '@/components/inbox/inbox-empty';
import type { InboxItem } from '@/lib/types/inbox';

// Every source the inbox lists (a missing one fails to compile here), and the word the empty state uses for it.
const SOURCES: Record<InboxItem['where']['source'], string> = { chat: 'chats', team: 'teams', batch: 'batches' };

describe('InboxEmpty', () => {
  it('names every source a question or approval can come from, batches included', () => {
    const html = renderToStaticMarkup(createElement(InboxEmpty));
    expect(html).toContain('Nothing needs you');
    // What must not happen: a person with a batch item waiting elsewhere told only chats and teams land here.
    for (const word of Object.values(SOURCES)) expect(html).toMatch(new RegExp(`\\b${word}\\b`));
  });
});
