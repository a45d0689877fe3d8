import { describe, expect, it } from 'vitest';
import { approvalRequest, parseInterruptResponse, respondErrorMessage, responseHint } from '@/components/teams/interrupt-response';
import { ApiError } from '@/lib/api-client';
import { approvalDecisionSchema } from '@/lib/schemas/conversation';

describe('parseInterruptResponse', () => {
  it('accepts valid JSON within 8,000 bytes', () => {
    expect(parseInterruptResponse('{"approve": true}')).toEqual({ ok: true, value: { approve: true }, bytes: 16 });
    const exact = JSON.stringify('x'.repeat(7998));
    expect(parseInterruptResponse(exact)).toMatchObject({ ok: true, bytes: 8000 });
  });

  it('refuses invalid JSON, empty input, oversize and lone surrogates', () => {
    expect(parseInterruptResponse('{approve}')).toMatchObject({ ok: false, error: expect.stringMatching(/Not valid JSON/) });
    expect(parseInterruptResponse('  ')).toEqual({ ok: false, error: 'Enter a JSON value' });
    expect(parseInterruptResponse(JSON.stringify('x'.repeat(7999)))).toMatchObject({ ok: false, error: expect.stringMatching(/too large/) });
    expect(parseInterruptResponse('"\\ud800"')).toMatchObject({ ok: false, error: expect.stringMatching(/invalid character/) });
  });
});

describe('approvalRequest', () => {
  it('reads the tool call of an approval interrupt', () => {
    const args = { expression: '2+2' };
    expect(approvalRequest({ type: 'interrupt', payload: { type: 'approval', tool: 'calculator', args } })).toEqual({ tool: 'calculator', args });
    expect(approvalRequest({ type: 'interrupt', payload: { type: 'approval', tool: 'clock' } })).toEqual({ tool: 'clock', args: undefined });
    const mcp = { server: 'stub', tool: 'shout' };
    expect(approvalRequest({ type: 'interrupt', payload: { type: 'approval', tool: 'mcp_0123abcd_shout', args, mcp } })).toEqual({ tool: 'mcp_0123abcd_shout', args, mcp });
    expect(approvalRequest({ type: 'interrupt', payload: { type: 'approval', tool: 'mcp_0123abcd_shout', args, mcp: ['stub'] } })).toEqual({ tool: 'mcp_0123abcd_shout', args });
  });

  it('is null for a clarification, another interrupt, or an approval payload without a tool name', () => {
    expect(approvalRequest({ type: 'clarification', question: 'Which?', questionId: 'q1' })).toBeNull();
    expect(approvalRequest({ type: 'interrupt', payload: { type: 'review', draft: 'x' } })).toBeNull();
    expect(approvalRequest({ type: 'interrupt', payload: { type: 'approval', tool: 42 } })).toBeNull();
    expect(approvalRequest({ type: 'interrupt', payload: [{ type: 'approval', tool: 'calculator' }] })).toBeNull();
    expect(approvalRequest({ type: 'interrupt', payload: null })).toBeNull();
  });
});

describe('responseHint', () => {
  it('names the fields of an approval the prompt could not show, and nothing for other interrupts', () => {
    expect(responseHint({ type: 'interrupt', payload: { type: 'approval', tool: 42 } })).toMatch(/"approved": true.*"note"/);
    expect(responseHint({ type: 'interrupt', payload: { type: 'review' } })).toBeNull();
    expect(responseHint({ type: 'clarification', question: 'Which?', questionId: 'q1' })).toBeNull();
  });
});

describe('respondErrorMessage', () => {
  const refused = (fields: Record<string, string>) => new ApiError(422, 'validation_error', 'Invalid request', fields);

  it('names the response field the server refused, every one of them', () => {
    expect(respondErrorMessage(refused({ 'response.approved': 'Must be true or false', 'response.ok': 'Unknown field' }))).toBe(
      'approved: Must be true or false; ok: Unknown field',
    );
  });

  it('keeps a message about the whole answer as it is', () => {
    expect(respondErrorMessage(refused({ response: 'An approval is an object' }))).toBe('An approval is an object');
    expect(respondErrorMessage(refused({ answer: 'Answer is too long' }))).toBe('Answer is too long');
    expect(respondErrorMessage(new ApiError(409, 'not_waiting', 'Request is not waiting for input'))).toBe('Request is not waiting for input');
    expect(respondErrorMessage(new TypeError('fetch failed'))).toBe('Sending the answer failed; try again.');
  });
});

describe('the approval answer the server accepts', () => {
  it('tells a non-object the shape, naming approved and note', () => {
    for (const value of [true, 'yes', null, [true]]) {
      const parsed = approvalDecisionSchema.safeParse(value);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe('An approval is an object: { "approved": true or false, "note"?: text }');
    }
  });

  it('still names the field inside an object', () => {
    const parsed = approvalDecisionSchema.safeParse({ ok: 1 });
    expect(parsed.error?.issues.map((i) => [i.path.join('.'), i.code === 'unrecognized_keys' ? i.keys : i.message])).toEqual(
      expect.arrayContaining([
        ['approved', 'Must be true or false'],
        ['', ['ok']],
      ]),
    );
    expect(approvalDecisionSchema.safeParse({ approved: false, note: 'not now' }).success).toBe(true);
  });
});
