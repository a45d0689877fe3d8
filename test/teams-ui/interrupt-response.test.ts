import { describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { boundedTextProblem, counterLabel, measureText, parseInterruptResponse } from '@/components/teams/bounded-text';

const task = LIMITS.task;

describe('task text bound (4,000 characters and 8,000 bytes)', () => {
  it('accepts exactly the limit and refuses one past it in ASCII', () => {
    expect(boundedTextProblem('a'.repeat(4000), task, 'Message')).toBeNull();
    expect(boundedTextProblem('a'.repeat(4001), task, 'Message')).toMatch(/too long/);
  });

  it('counts CJK by bytes: 2,666 three-byte characters fit, 2,667 do not', () => {
    expect(boundedTextProblem('研'.repeat(2666), task, 'Message')).toBeNull();
    const m = measureText('研'.repeat(2667), task);
    expect(m).toMatchObject({ chars: 2667, bytes: 8001, overBytes: true, overChars: false, over: true });
  });

  it('counts an emoji as one character of four bytes: 2,000 fit, 2,001 do not', () => {
    expect(boundedTextProblem('🤖'.repeat(2000), task, 'Message')).toBeNull();
    expect(boundedTextProblem('🤖'.repeat(2001), task, 'Message')).toMatch(/8,000 bytes/);
  });

  it('requires text and refuses lone surrogates', () => {
    expect(boundedTextProblem('   ', task, 'Message')).toBe('Message is required');
    expect(boundedTextProblem('', task, 'Goal', false)).toBeNull();
    expect(boundedTextProblem('a\uD800b', task, 'Message')).toMatch(/invalid character/);
  });

  it('labels the counter with characters and bytes', () => {
    expect(counterLabel(measureText('héllo', task), task)).toBe('5 / 4,000 characters · 6 / 8,000 bytes');
  });
});

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
