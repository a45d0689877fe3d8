import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { JobAnswerForm } from '@/components/teams/job-answer-form';
import { LIMITS } from '@/lib/limits';
import type { ApiWaiting } from '@/lib/types/team';

const render = (waiting: ApiWaiting, value = '') =>
  renderToStaticMarkup(
    createElement(JobAnswerForm, { jobId: 'job-1', waiting, member: '@Calculator', value, onChange: () => {}, onSubmit: async () => {} }),
  );

const approval = (tool: unknown, args: unknown): ApiWaiting => ({ type: 'interrupt', payload: { type: 'approval', tool, args } });

describe('a waiting job card’s answer form', () => {
  it('offers Approve and Decline for a tool call, each naming the call, with a note and no JSON box', () => {
    const html = render(approval('calculator', { expression: '2+2' }), 'because');
    expect(html).toMatch(/<section aria-labelledby="[^"]+"[^>]*><h4 id="[^"]+"[^>]*>Approval needed: <span[^>]*>calculator<\/span><\/h4>/);
    expect(html).toContain('@Calculator wants to run this tool.');
    expect(html).toContain('&quot;expression&quot;: &quot;2+2&quot;');
    expect(html).toMatch(/<button[^>]*>Approve<span class="sr-only"> calculator \{&quot;expression&quot;:&quot;2\+2&quot;\}<\/span><\/button>/);
    expect(html).toMatch(/<button[^>]*>Decline<span class="sr-only"> calculator \{&quot;expression&quot;:&quot;2\+2&quot;\}<\/span><\/button>/);
    // The note is the workspace's kept text for this job.
    expect(html).toMatch(/<label for="([^"]+)"[^>]*>Note \(optional\)<\/label><textarea[^>]*id="\1"[^>]*>because<\/textarea>/);
    expect(html).toMatch(/<p role="status" class="sr-only"><\/p>/);
    expect(html).not.toContain('Response (JSON)');
    expect(html).not.toContain('&quot;type&quot;: &quot;approval&quot;');
    expect(html).not.toMatch(/<button[^>]*\s(aria-)?disabled=/);
  });

  it('renders a tool name and arguments chosen by a model as text, never as HTML', () => {
    const html = render(approval('<img src=x onerror=alert(1)>', { q: '</pre><script>alert(1)</script>' }));
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('keeps the JSON response for any other interrupt, and the text answer for a question', () => {
    const other = render({ type: 'interrupt', payload: { type: 'review', draft: '<b>x</b>' } });
    expect(other).toContain('Response (JSON)');
    expect(other).toContain('&lt;b&gt;x&lt;/b&gt;');
    expect(other).not.toContain('Approve');
    const question = render({ type: 'clarification', question: 'Which tone?', questionId: 'q1' });
    expect(question).toContain('Your answer');
    expect(question).not.toContain('Approve');
  });

  it('tells the expected fields when an approval payload cannot be shown as one', () => {
    const html = render(approval(42, {}));
    expect(html).toContain('Response (JSON)');
    expect(html).toMatch(/<p id="([^"]+-hint)"[^>]*>An approval takes \{&quot;approved&quot;: true\}.*<\/p><textarea[^>]*aria-describedby="\1 /);
  });

  it('marks a question’s answer invalid past its bound before any Send, and says so to a screen reader; at the bound it is not', () => {
    const question: ApiWaiting = { type: 'clarification', question: 'Which tone?', questionId: 'q1' };
    const field = (html: string) => /<textarea[^>]*>/.exec(html)![0];
    // At the limit and one past it, in ASCII, CJK (3 bytes each: the byte bound decides) and emoji (4 bytes, 2 UTF-16 units).
    const ascii = 'a'.repeat(LIMITS.answer.maxChars);
    const cjk = '語'.repeat(Math.floor(LIMITS.answer.maxBytes / 3));
    const emoji = '🙂'.repeat(LIMITS.answer.maxBytes / 4);
    for (const atLimit of [ascii, cjk, emoji]) {
      const html = render(question, atLimit);
      expect(field(html)).not.toContain('aria-invalid');
      expect(html).not.toContain('Over the limit');
    }
    for (const past of [`${ascii}a`, `${cjk}語`, `${emoji}🙂`]) {
      const html = render(question, past);
      expect(field(html)).toContain('aria-invalid="true"');
      expect(html).toContain('Over the limit of 4,000 characters or 8,000 bytes: shorten the text.');
    }
  });

  it('bounds a JSON response by its bytes only: at the bound it is valid, one byte more is not', () => {
    const review: ApiWaiting = { type: 'interrupt', payload: { type: 'review', draft: 'x' } };
    const field = (html: string) => /<textarea[^>]*>/.exec(html)![0];
    const atLimit = `"${'a'.repeat(LIMITS.interruptResponse.maxBytes - 2)}"`;
    expect(field(render(review, atLimit))).not.toContain('aria-invalid');
    expect(render(review, atLimit)).toContain('8,000 / 8,000 bytes');
    expect(field(render(review, `${atLimit} `))).toContain('aria-invalid="true"');
  });
});
