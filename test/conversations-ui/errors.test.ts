import { describe, expect, it } from 'vitest';
import { ActionFailure } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';
import { BUSY_MESSAGE, isPermanentError, loadErrorMessage, sendErrorMessage } from '@/components/conversations/errors';

// Writes are server actions now: a refusal arrives as ActionFailure, which has no HTTP status, so the wording
// must follow the code alone.
const refused = (code: string, message: string, fields?: Record<string, string>) => new ActionFailure({ code, message, fields });

describe('sendErrorMessage', () => {
  it('says the agent is still working when the conversation is busy', async () => {
    expect(sendErrorMessage(refused('conversation_busy', 'busy'))).toBe(BUSY_MESSAGE);
    expect(BUSY_MESSAGE).toMatch(/^The agent is still working on the previous message/);
  });

  it("uses the server's field message for validation errors", async () => {
    expect(sendErrorMessage(refused('validation_error', 'Invalid', { text: 'Too long' }))).toBe('Too long');
    expect(sendErrorMessage(refused('validation_error', 'Invalid', { 'value.note': 'Bad note' }))).toBe('Bad note');
    expect(sendErrorMessage(refused('payload_too_large', 'Body too large'))).toBe('Body too large');
  });

  it('shows the daily token cap refusal as the server words it (used, cap, when it resets)', async () => {
    const message = 'Your account has used its daily token allowance (5,000 of 5,000 tokens today). It resets at midnight UTC, in 3 h 12 min.';
    expect(sendErrorMessage(refused('daily_token_cap', message))).toBe(message);
  });

  it('explains sign-out, missing conversations, and anything else', async () => {
    expect(sendErrorMessage(refused('unauthorized', 'x'))).toMatch(/session has ended/);
    expect(sendErrorMessage(refused('not_found', 'x'))).toMatch(/no longer exists/);
    expect(sendErrorMessage(refused('network_error', 'Could not reach the server.'))).toBe('Could not reach the server.');
    expect(sendErrorMessage(new ApiError(500, 'internal_error', 'Something went wrong'))).toBe('Something went wrong');
    expect(sendErrorMessage(new TypeError('boom'))).toMatch(/message is kept/);
  });
});

describe('load errors', () => {
  it('treats 401/403/404 as permanent and says what is missing', async () => {
    expect(isPermanentError(new ApiError(404, 'not_found', 'x'))).toBe(true);
    expect(isPermanentError(new ApiError(401, 'unauthorized', 'x'))).toBe(true);
    expect(isPermanentError(new ApiError(500, 'internal_error', 'x'))).toBe(false);
    expect(isPermanentError(new Error('x'))).toBe(false);
    expect(loadErrorMessage(new ApiError(404, 'not_found', 'x'), 'The conversation')).toMatch(/^The conversation was not found/);
    expect(loadErrorMessage(new ApiError(0, 'network_error', 'Could not reach the server.'), 'Conversations')).toBe('Could not reach the server.');
  });
});
