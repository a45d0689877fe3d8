import { describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api-client';
import { sendStep, type SendableDraft } from '@/lib/send-step';
import { recordingServer } from '../support/recording-server';

/** A fake server that, like the real one, makes one thing per idempotency key and answers with what that key made. */
function fakeServer() {
  const made = new Map<string, SendableDraft>();
  const server = recordingServer(
    (draft: SendableDraft, key: string) => ({ draft, key }),
    ({ draft, key }): number => {
      if (!made.has(key)) made.set(key, draft);
      return made.size;
    },
  );
  return { made, ...server };
}

let n = 0;
const mint = () => `k${++n}`;
const bound = { maxChars: 10, maxBytes: 20 };
const base = { bound, blankError: 'Write something.', errorMessage: (e: unknown) => (e instanceof Error ? e.message : 'failed'), mint };

describe('sendStep (every composer’s Send)', () => {
  it('sends at the bound and refuses one past it without a request, in ASCII, CJK and emoji', async () => {
    const server = fakeServer();
    const at = ['a'.repeat(10), '漢'.repeat(6) /* 18 bytes */, '😀'.repeat(5) /* 20 bytes */];
    const past = ['a'.repeat(11), '漢'.repeat(7) /* 21 bytes */, '😀'.repeat(6) /* 24 bytes */];
    for (const text of at) expect((await sendStep({ ...base, draft: { text, memberIds: [] }, keyed: null, send: server.send })).outcome).toBe('sent');
    for (const text of past) {
      const step = await sendStep({ ...base, draft: { text, memberIds: ['m1'] }, keyed: null, send: server.send });
      expect(step).toMatchObject({ outcome: 'refused', error: expect.stringMatching(/^Message is too long: at most 10 characters and 20 UTF-8 bytes/) });
    }
    // What must not happen: a request for a text the server would refuse.
    expect(server.calls.map((c) => c.draft.text)).toEqual(at);
  });

  it('refuses a control character, a lone surrogate, a blank draft and a busy send before any request', async () => {
    const server = fakeServer();
    const refused = async (text: string, busyMessage: string | null = null) =>
      sendStep({ ...base, draft: { text, memberIds: [] }, keyed: null, busyMessage, send: server.send });
    expect(await refused('a\u0000b')).toMatchObject({ outcome: 'refused', error: 'Message contains a control character (U+0000); remove it' });
    expect(await refused('a\uD800')).toMatchObject({ outcome: 'refused', error: expect.stringMatching(/invalid character/) });
    expect(await refused(' \n\t')).toMatchObject({ outcome: 'refused', error: 'Write something.' });
    expect(await refused('hi', 'Wait for the answer.')).toMatchObject({ outcome: 'refused', error: 'Wait for the answer.' });
    expect(server.calls).toHaveLength(0);
  });

  it('a retry after a failure reuses the key (one thing made); recipients in another order are the same draft', async () => {
    const server = fakeServer();
    server.failOnce(new Error('Could not reach the server.'));
    const first = await sendStep({ ...base, draft: { text: 'go', memberIds: ['b', 'a'] }, keyed: null, send: server.send });
    expect(first).toMatchObject({ outcome: 'failed', error: 'Could not reach the server.' });
    const retry = await sendStep({ ...base, draft: { text: 'go', memberIds: ['a', 'b'] }, keyed: first.keyed, send: server.send });
    expect(retry).toEqual({ outcome: 'sent', result: 1, sent: { text: 'go', memberIds: ['a', 'b'] }, keyed: null });
    expect(server.calls[0]!.key).toBe(server.calls[1]!.key);
    expect(server.made.size).toBe(1);
  });

  it('after a success the same draft again is a new request; a changed draft after a failure gets a new key', async () => {
    const server = fakeServer();
    const a = await sendStep({ ...base, draft: { text: 'again', memberIds: [] }, keyed: null, send: server.send });
    const b = await sendStep({ ...base, draft: { text: 'again', memberIds: [] }, keyed: a.keyed, send: server.send });
    expect([a.outcome, b.outcome]).toEqual(['sent', 'sent']);
    server.failOnce(new Error('down'));
    const failed = await sendStep({ ...base, draft: { text: 'x', memberIds: [] }, keyed: null, send: server.send });
    const changed = await sendStep({ ...base, draft: { text: 'y', memberIds: [] }, keyed: failed.keyed, send: server.send });
    expect(changed.outcome).toBe('sent');
    expect(new Set(server.calls.map((c) => c.key)).size).toBe(4);
  });

  it('words a server refusal with the caller’s errorMessage', async () => {
    const server = fakeServer();
    server.failOnce(new ApiError(422, 'validation_error', 'Invalid request', { text: 'Text must be shorter' }));
    const step = await sendStep({
      ...base,
      draft: { text: 'hi', memberIds: [] },
      keyed: null,
      send: server.send,
      errorMessage: (e) => (e instanceof ApiError ? (e.fields.text ?? e.message) : 'failed'),
    });
    expect(step).toMatchObject({ outcome: 'failed', error: 'Text must be shorter' });
  });
});
