import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { ToolMessage } from '@langchain/core/messages';
import { JsonPlusSerializer } from '@langchain/langgraph-checkpoint';
import { describe, expect, it } from 'vitest';
import { ToolCallDetails, ToolResultDetails } from '@/components/conversations/tool-call-details';
import type { Message } from '@/components/conversations/types';
import { toApiMessages } from '@/server/agents/messages';

const toolMessage = (status?: 'success' | 'error') =>
  new ToolMessage({ id: 't1', tool_call_id: 'call_1', name: 'calculator', content: 'Error: unexpected end', ...(status ? { status } : {}) });

/** The summary line (what shows while the entry is collapsed), without tags. */
const summaryText = (html: string) => /<summary[^>]*>([\s\S]*?)<\/summary>/.exec(html)![1]!.replace(/<[^>]+>/g, ' ');

describe('a failed tool call', () => {
  it("the API message says status 'error' when the tool message does, also after the checkpoint's serializer", async () => {
    const serde = new JsonPlusSerializer();
    const [type, bytes] = await serde.dumpsTyped(toolMessage('error'));
    const stored = (await serde.loadsTyped(type, bytes)) as ToolMessage;
    const [failed] = toApiMessages([stored]);
    expect(failed).toMatchObject({ role: 'tool', toolCallId: 'call_1', toolName: 'calculator', status: 'error' });

    const [ok] = toApiMessages([toolMessage('success')]);
    const [unset] = toApiMessages([toolMessage()]);
    expect(ok).not.toHaveProperty('status');
    expect(unset).not.toHaveProperty('status');
  });

  it('shows "Failed" in the danger tone, never the green "Result"', () => {
    const result: Message = { id: 't1', role: 'tool', text: 'Error: unexpected end', toolCallId: 'call_1', toolName: 'calculator', status: 'error' };
    const html = renderToStaticMarkup(createElement(ToolCallDetails, { name: 'calculator', args: { expression: 'abc+' }, result }));
    const summary = summaryText(html);
    expect(summary).toContain('Failed');
    expect(summary).not.toContain('Result');
    expect(html).toContain('bg-red-100');
    expect(html).not.toContain('bg-emerald-100');

    const orphan = renderToStaticMarkup(createElement(ToolResultDetails, { message: result }));
    expect(summaryText(orphan)).toContain('Failed');
  });

  it('a declined call reads "Declined" (neutral), not "Failed": the person stopped it, the tool did not fail', async () => {
    const serde = new JsonPlusSerializer();
    const marked = new ToolMessage({ id: 't2', tool_call_id: 'call_2', name: 'calculator', status: 'error', content: 'The person declined this calculator call, so it was not run.', additional_kwargs: { ensemble: { declined: true } } });
    const [type, bytes] = await serde.dumpsTyped(marked);
    const [declined] = toApiMessages([(await serde.loadsTyped(type, bytes)) as ToolMessage]);
    expect(declined).toMatchObject({ role: 'tool', status: 'error', declined: true });
    // A tool's own error is not a decline.
    expect(toApiMessages([toolMessage('error')])[0]).not.toHaveProperty('declined');

    const html = renderToStaticMarkup(createElement(ToolCallDetails, { name: 'calculator', args: { expression: '6*7' }, result: declined! }));
    expect(summaryText(html)).toContain('Declined');
    expect(summaryText(html)).not.toMatch(/Failed|Result/);
    expect(html).not.toContain('bg-red-100');
    expect(summaryText(renderToStaticMarkup(createElement(ToolResultDetails, { message: declined! })))).toContain('Declined');
  });

  it('a successful result keeps the green "Result"', () => {
    const result: Message = { id: 't1', role: 'tool', text: '5', toolCallId: 'call_1', toolName: 'calculator' };
    const html = renderToStaticMarkup(createElement(ToolCallDetails, { name: 'calculator', args: { expression: '2+3' }, result }));
    expect(summaryText(html)).toContain('Result');
    expect(summaryText(html)).not.toContain('Failed');
    expect(html).toContain('bg-emerald-100');
  });
});
