import { describe, expect, it } from 'vitest';
import { parseInterruptResponse } from '@/components/teams/interrupt-response';

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
