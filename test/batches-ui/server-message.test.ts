import { describe, expect, it } from 'vitest';
import { serverMessage } from '@/components/batches/server-message';
import { ApiError } from '@/lib/api-client';

describe('serverMessage: a batch refusal as the start form shows it', () => {
  it('shows a row’s message, counted from 1, without the 0-based path beside it', () => {
    const error = new ApiError(422, 'validation_error', 'Invalid input', { 'items.0': 'Row 1: missing "mood"', 'items.999': 'Row 1000: not a column: "x"' });
    const text = serverMessage(error);
    expect(text).toBe('Invalid input (Row 1: missing "mood"; Row 1000: not a column: "x")');
    // What must not happen: one row read as two numbers ("items.0: Row 1").
    expect(text).not.toContain('items.');
  });

  it('names any other field', () => {
    expect(serverMessage(new ApiError(422, 'validation_error', 'Invalid input', { template: 'Unknown field {{x}}: not a column' }))).toBe(
      'Invalid input (template: Unknown field {{x}}: not a column)',
    );
    expect(serverMessage(new Error('Network down'))).toBe('Network down');
  });
});
