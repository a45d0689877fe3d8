import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { MessageList } from '@/components/conversations/message-list';
import { isFrameworkNote, sentToLine, userMessageView } from '@/components/conversations/message-meta';
import { buildTimeline } from '@/components/conversations/timeline';
import type { Message } from '@/components/conversations/types';
import { toApiMessages } from '@/server/agents/messages';

const mention = (id: string, text: string, jobIds: string[], extra: Record<string, unknown> = {}): Message => ({
  id,
  role: 'user',
  text,
  meta: { kind: 'mention', jobIds, ...extra },
});
const note = (id: string, text: string): Message => ({ id, role: 'assistant', text, meta: { kind: 'framework_note' } });
const receipt = (id: string, parentJobId: string, memberName: string, status: string, resultText: string, text = resultText): Message => ({
  id,
  role: 'user',
  text,
  meta: { kind: 'receipt', teamId: 't', jobId: `r-${parentJobId}`, parentJobId, status, memberName, resultText, runId: 'run' },
});

describe('userMessageView', () => {
  it('reads each kind, checking every field', async () => {
    expect(userMessageView({})).toEqual({ kind: 'plain' });
    expect(userMessageView({ meta: { kind: 'clarification_answer' } })).toEqual({ kind: 'plain' });
    expect(userMessageView({ meta: { kind: 'mention', jobIds: ['a', 3, 'b'] } })).toEqual({ kind: 'mention', jobIds: ['a', 'b'], labels: null });
    expect(userMessageView({ meta: { kind: 'team_request', from: 'Research' } })).toEqual({ kind: 'request', from: 'Research' });
    expect(userMessageView({ meta: { kind: 'team_request', from: 7 } })).toEqual({ kind: 'request', from: 'a teammate' });
    expect(userMessageView({ meta: { kind: 'receipt', status: 'failed', memberName: 'Writer', resultText: 'Boom', parentJobId: 'j' } })).toEqual({
      kind: 'receipt',
      memberName: 'Writer',
      status: 'failed',
      resultText: 'Boom',
      parentJobId: 'j',
    });
    expect(userMessageView({ meta: { kind: 'receipt' } })).toMatchObject({ memberName: 'a team member', status: 'completed', resultText: '' });
  });

  it('treats only framework-written assistant messages as notes', async () => {
    expect(isFrameworkNote(note('n', 'x'))).toBe(true);
    expect(isFrameworkNote({ role: 'assistant' })).toBe(false);
    expect(isFrameworkNote({ role: 'user', meta: { kind: 'framework_note' } })).toBe(false);
  });
});

describe('sentToLine', () => {
  const view = (jobIds: string[], labels: string[] | null = null) => ({ kind: 'mention' as const, jobIds, labels });

  it('prefers labels in the meta, then the framework note, then a count', async () => {
    expect(sentToLine(view(['j'], ['A / B']), null)).toBe('Sent to: A / B');
    expect(sentToLine(view(['j']), { text: 'Queued a request to Launch, Inc / Writer. Each result will be returned to this conversation.' })).toBe(
      'Sent to: Launch, Inc / Writer',
    );
    expect(sentToLine(view(['j', 'k']), { text: 'Queued 2 requests to A / B, A / C. Each result will be returned to this conversation.' })).toBe(
      'Sent to: A / B, A / C',
    );
    expect(sentToLine(view(['j', 'k']), { text: 'Something else entirely.' })).toBe('Sent to 2 team members');
    expect(sentToLine(view(['j']), null)).toBe('Sent to 1 team member');
  });
});

describe('buildTimeline with team messages', () => {
  const thread: Message[] = [
    { id: 'u0', role: 'user', text: 'plain question' },
    { id: 'a0', role: 'assistant', text: 'plain answer' },
    mention('u1', '/reply Done by member', ['j1']),
    note('n1', 'Queued a request to Launch / Writer. Each result will be returned to this conversation.'),
    receipt('u2', 'j1', 'Writer', 'completed', 'Done by member'),
    { id: 'a2', role: 'assistant', text: 'Received completed result from Writer: Done by member' },
  ];

  it('renders the mention with its recipients, the note as a note, and the receipt as a result', async () => {
    expect(buildTimeline(thread)).toEqual([
      { kind: 'user', id: 'u0', text: 'plain question' },
      { kind: 'assistant', id: 'a0', text: 'plain answer', toolCalls: [] },
      { kind: 'mention', id: 'u1', text: '/reply Done by member', sentTo: 'Sent to: Launch / Writer' },
      { kind: 'note', id: 'n1', text: 'Queued a request to Launch / Writer. Each result will be returned to this conversation.' },
      // The receipt started a run of this agent: its steps open from the receipt.
      { kind: 'receipt', id: 'u2', memberName: 'Writer', status: 'completed', text: 'Done by member', runId: 'run' },
      { kind: 'assistant', id: 'a2', text: 'Received completed result from Writer: Done by member', toolCalls: [] },
    ]);
  });

  it('shows a receipt’s result text from its meta, not the message text', async () => {
    const [item] = buildTimeline([receipt('r', 'j', 'Writer', 'failed', 'The result', '<ensemble-result>preamble</ensemble-result>')]);
    expect(item).toEqual({ kind: 'receipt', id: 'r', memberName: 'Writer', status: 'failed', text: 'The result', runId: 'run' });
  });

  it('shows a request in a member conversation with its sender', async () => {
    const [item] = buildTimeline([{ id: 'q', role: 'user', text: 'Draft the note', meta: { kind: 'team_request', from: 'You', jobId: 'j' } }]);
    expect(item).toEqual({ kind: 'request', id: 'q', from: 'You', text: 'Draft the note' });
  });

  it('renders all of it as text: markup in untrusted fields stays inert', async () => {
    const xss = '<img src=x onerror=alert(1)>';
    const html = renderToStaticMarkup(
      createElement(MessageList, {
        agentName: 'Solo',
        echo: null,
        messages: [
          mention('u1', xss, ['j1']),
          note('n1', `Queued a request to ${xss}. Each result will be returned to this conversation.`),
          receipt('u2', 'j1', xss, 'completed', xss),
          { id: 'q', role: 'user', text: xss, meta: { kind: 'team_request', from: xss } },
        ],
      }),
    );
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain(`Result from &lt;img src=x onerror=alert(1)&gt; (completed)`);
    expect(html).toContain('Sent to: &lt;img');
    expect(html).toContain('Ensemble: </span>Queued a request to');
    expect(html).toContain('Request from &lt;img');
  });
});

describe('toApiMessages', () => {
  it('exposes framework meta on assistant messages the framework wrote, and nothing on the agent’s own', async () => {
    const [human, framework, agent] = toApiMessages([
      new HumanMessage({ id: 'h', content: 'hi', additional_kwargs: { ensemble: { kind: 'mention', jobIds: ['j'], taskText: 'hi' } } }),
      new AIMessage({ id: 'n', content: 'Queued a request to A / B.', additional_kwargs: { ensemble: { kind: 'framework_note' } } }),
      new AIMessage({ id: 'a', content: 'Hello' }),
    ]);
    expect(human).toEqual({
      id: 'h',
      role: 'user',
      text: 'hi',
      meta: { kind: 'mention', jobIds: ['j'] },
      provenance: { contentKind: 'mention', producer: { type: 'person' } },
    });
    expect(framework).toEqual({
      id: 'n',
      role: 'assistant',
      text: 'Queued a request to A / B.',
      meta: { kind: 'framework_note' },
      provenance: { contentKind: 'note', producer: { type: 'framework' } },
    });
    expect(agent).toEqual({ id: 'a', role: 'assistant', text: 'Hello', provenance: { contentKind: 'assistant', producer: { type: 'agent' } } });
  });
});
