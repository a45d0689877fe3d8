import { describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api-client';
import { BUSY_MESSAGE } from '@/components/conversations/errors';
import { draftSignature, type KeyedDraft } from '@/lib/idempotency/draft-key';
import { sendDraft } from '@/components/conversations/send-draft';
import { recordingServer } from '../support/recording-server';

/** A fake server that, like the real one, makes one run per idempotency key. */
function fakeServer() {
  const runs = new Map<string, string>();
  const server = recordingServer(
    (text: string, key: string) => ({ text, key }),
    ({ text, key }) => {
      if (!runs.has(key)) runs.set(key, text);
    },
  );
  return { runs, ...server };
}

let n = 0;
const mint = () => `k${++n}`;

describe('sendDraft', () => {
  it('a retry after a lost response reuses the key, so the server still has one run', async () => {
    const server = fakeServer();
    // The run is created but the response is lost on the way back.
    server.failOnce(new ApiError(0, 'network_error', 'Could not reach the server.'));
    const first = await sendDraft({ text: 'hello', keyed: null, busyMessage: null, send: server.send, currentDraft: () => 'hello', mint });
    expect(first).toMatchObject({ outcome: 'failed', error: 'Could not reach the server.' });
    const retry = await sendDraft({ text: 'hello', keyed: first.keyed, busyMessage: null, send: server.send, currentDraft: () => 'hello', mint });
    expect(retry).toEqual({ outcome: 'sent', draft: '', keyed: null });
    expect(server.calls).toHaveLength(2);
    expect(server.calls[0]?.key).toBe(server.calls[1]?.key);
    expect(server.runs.size).toBe(1);
  });

  it('after a success the same text sent again is a new message with a new key', async () => {
    const server = fakeServer();
    const a = await sendDraft({ text: 'again', keyed: null, busyMessage: null, send: server.send, currentDraft: () => 'again', mint });
    const b = await sendDraft({ text: 'again', keyed: a.keyed, busyMessage: null, send: server.send, currentDraft: () => 'again', mint });
    expect(a.outcome).toBe('sent');
    expect(b.outcome).toBe('sent');
    expect(server.runs.size).toBe(2);
  });

  it('keeps text typed while the request was in flight', async () => {
    const server = fakeServer();
    const res = await sendDraft({ text: 'first', keyed: null, busyMessage: null, send: server.send, currentDraft: () => 'first, then more', mint });
    expect(res).toEqual({ outcome: 'sent', draft: 'first, then more', keyed: null });
  });

  it('sends nothing when the draft is over the limit, blank, or the agent is busy', async () => {
    const server = fakeServer();
    const base = { keyed: null, send: server.send, currentDraft: () => '', mint };
    const tooLong = await sendDraft({ ...base, text: 'a'.repeat(4001), busyMessage: null });
    expect(tooLong).toMatchObject({ outcome: 'refused', error: expect.stringMatching(/too long/) });
    const blank = await sendDraft({ ...base, text: '   ', busyMessage: null });
    expect(blank).toMatchObject({ outcome: 'refused', error: 'Write a message first.' });
    const busy = await sendDraft({ ...base, text: 'hi', busyMessage: BUSY_MESSAGE });
    expect(busy).toMatchObject({ outcome: 'refused', error: BUSY_MESSAGE });
    expect(server.calls).toHaveLength(0);
  });

  it('shows a 409 busy answer in words and keeps the key for the retry', async () => {
    const server = fakeServer();
    server.failOnce(new ApiError(409, 'conversation_busy', 'Conversation is busy'));
    const keyed: KeyedDraft = { signature: draftSignature('hi', []), key: 'existing' };
    const res = await sendDraft({ text: 'hi', keyed, busyMessage: null, send: server.send, currentDraft: () => 'hi', mint });
    expect(res).toEqual({ outcome: 'failed', error: BUSY_MESSAGE, keyed });
    expect(server.calls[0]?.key).toBe('existing');
  });

  it('shows the server field error for text the server refused', async () => {
    const server = fakeServer();
    server.failOnce(new ApiError(422, 'validation_error', 'Invalid request', { text: 'Text must be at most 4000 characters' }));
    const res = await sendDraft({ text: 'hi', keyed: null, busyMessage: null, send: server.send, currentDraft: () => 'hi', mint });
    expect(res).toMatchObject({ outcome: 'failed', error: 'Text must be at most 4000 characters' });
  });
});
