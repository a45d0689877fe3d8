import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MessageItem } from '@/components/conversations/message-item';
import type { TimelineItem } from '@/components/conversations/timeline';

const render = (item: TimelineItem) => renderToStaticMarkup(createElement(MessageItem, { item, agentName: 'Echo' }));
const EMPTY = 'The model returned an empty answer.';

describe("an agent's turn in the chat", () => {
  it('says so when the model answered with neither text nor a tool call, instead of an empty bubble', () => {
    const html = render({ kind: 'assistant', id: 'a1', text: '', toolCalls: [] });
    expect(html).toContain('Echo');
    expect(html).toContain(EMPTY);
    expect(render({ kind: 'assistant', id: 'a2', text: ' \n ', toolCalls: [] })).toContain(EMPTY);
  });

  it('shows the text or the tool calls as they are, without the note', () => {
    expect(render({ kind: 'assistant', id: 'a3', text: 'Hello', toolCalls: [] })).not.toContain(EMPTY);
    const calling = render({ kind: 'assistant', id: 'a4', text: '', toolCalls: [{ id: 'c1', name: 'calculator', args: { expression: '1+1' }, result: null }] });
    expect(calling).toContain('calculator');
    expect(calling).not.toContain(EMPTY);
  });
});
