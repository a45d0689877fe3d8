import { describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api-client';
import type { QueuedMention, Recipient } from '@/lib/mentions/types';
import { BUSY_MESSAGE } from '@/components/conversations/errors';
import { mentionConfirmation, sendMentionDraft, type MentionDraft } from '@/components/conversations/send-mentions';
import { recordingServer } from '../support/recording-server';

const writer: Recipient = { memberId: 'm-writer', label: 'Launch / Writer' };
const reviewer: Recipient = { memberId: 'm-reviewer', label: 'Launch / Reviewer' };

/** Like the real endpoint: one request per (messageKey, member); a repeated key answers the same jobs. */
function fakeServer() {
  const jobs = new Map<string, QueuedMention>();
  const server = recordingServer(
    (text: string, memberIds: string[], key: string) => ({ text, memberIds, key }),
    ({ memberIds, key }): QueuedMention[] =>
      memberIds.map((memberId) => {
        const id = `${key}:${memberId}`;
        if (!jobs.has(id)) jobs.set(id, { jobId: `job-${jobs.size + 1}`, teamId: 't', memberId, label: memberId === writer.memberId ? writer.label : reviewer.label, status: 'queued' });
        return jobs.get(id)!;
      }),
  );
  return { jobs, ...server };
}

let n = 0;
const mint = () => `key-${++n}`;
const draft = (text: string, recipients: Recipient[] = [writer]): MentionDraft => ({ text, recipients });

describe('sendMentionDraft', () => {
  it('sends the request without the space typed after a picked mention, and still empties that draft', async () => {
    const server = fakeServer();
    for (const text of [' 请写草稿 ✍️', '\t Draft it', 'Draft it']) {
      const d = draft(text);
      const sent = await sendMentionDraft({ draft: d, keyed: null, busyMessage: null, send: server.send, currentDraft: () => d, mint });
      expect(sent).toMatchObject({ outcome: 'sent', draft: { text: '', recipients: [] } });
    }
    expect(server.calls.map((c) => c.text)).toEqual(['请写草稿 ✍️', 'Draft it', 'Draft it']);
    // Only the very start: later lines keep their indentation.
    const code = draft(' x\n    indented');
    await sendMentionDraft({ draft: code, keyed: null, busyMessage: null, send: server.send, currentDraft: () => code, mint });
    expect(server.calls.at(-1)!.text).toBe('x\n    indented');
  });

  it('a retry after a lost response reuses the message key, so each member still has one request', async () => {
    const server = fakeServer();
    server.failOnce(new ApiError(0, 'network_error', 'Could not reach the server.'));
    const d = draft('/reply Done', [writer, reviewer]);
    const first = await sendMentionDraft({ draft: d, keyed: null, busyMessage: null, send: server.send, currentDraft: () => d, mint });
    expect(first).toMatchObject({ outcome: 'failed', error: 'Could not reach the server.' });
    const retry = await sendMentionDraft({ draft: d, keyed: first.keyed, busyMessage: null, send: server.send, currentDraft: () => d, mint });
    expect(retry.outcome).toBe('sent');
    expect(server.calls.map((c) => c.key)).toEqual([server.calls[0]!.key, server.calls[0]!.key]);
    expect(server.jobs.size).toBe(2);
  });

  it('the key follows text and recipients (recipient order does not matter)', async () => {
    const server = fakeServer();
    server.failOnce(new ApiError(500, 'internal', 'Oops'));
    const a = await sendMentionDraft({ draft: draft('hi', [writer, reviewer]), keyed: null, busyMessage: null, send: server.send, currentDraft: () => draft('hi'), mint });
    server.failOnce(new ApiError(500, 'internal', 'Oops'));
    const reordered = await sendMentionDraft({ draft: draft('hi', [reviewer, writer]), keyed: a.keyed, busyMessage: null, send: server.send, currentDraft: () => draft('hi'), mint });
    expect(reordered.keyed?.key).toBe(a.keyed?.key);
    const fewer = await sendMentionDraft({ draft: draft('hi', [writer]), keyed: reordered.keyed, busyMessage: null, send: server.send, currentDraft: () => draft('hi'), mint });
    expect(server.calls[2]!.key).not.toBe(a.keyed?.key);
    expect(fewer.outcome).toBe('sent');
  });

  it('after a success the same draft again is a new message with a new key', async () => {
    const server = fakeServer();
    const d = draft('again');
    const a = await sendMentionDraft({ draft: d, keyed: null, busyMessage: null, send: server.send, currentDraft: () => d, mint });
    expect(a).toMatchObject({ outcome: 'sent', keyed: null, draft: { text: '', recipients: [] } });
    await sendMentionDraft({ draft: d, keyed: a.keyed, busyMessage: null, send: server.send, currentDraft: () => d, mint });
    expect(new Set(server.calls.map((c) => c.key)).size).toBe(2);
  });

  it('clears the draft only if text and recipients still equal what was sent', async () => {
    const server = fakeServer();
    const sent = draft('first');
    const typedOn = await sendMentionDraft({ draft: sent, keyed: null, busyMessage: null, send: server.send, currentDraft: () => draft('first and more'), mint });
    expect(typedOn).toMatchObject({ outcome: 'sent', draft: { text: 'first and more', recipients: [writer] } });
    const chipAdded = await sendMentionDraft({ draft: sent, keyed: null, busyMessage: null, send: server.send, currentDraft: () => draft('first', [writer, reviewer]), mint });
    expect(chipAdded).toMatchObject({ outcome: 'sent', draft: { text: 'first', recipients: [writer, reviewer] } });
  });

  it('keeps text, recipients and key on a server refusal, with the field message', async () => {
    const server = fakeServer();
    server.failOnce(new ApiError(422, 'validation_error', 'Invalid', { memberIds: 'Not a member of one of your ready teams: m-writer' }));
    const d = draft('hello');
    const res = await sendMentionDraft({ draft: d, keyed: null, busyMessage: null, send: server.send, currentDraft: () => d, mint });
    expect(res).toMatchObject({ outcome: 'failed', error: 'Not a member of one of your ready teams: m-writer' });
    expect(res.keyed).not.toBeNull();
    server.failOnce(new ApiError(409, 'conversation_busy', 'busy'));
    const busy = await sendMentionDraft({ draft: d, keyed: res.keyed, busyMessage: null, send: server.send, currentDraft: () => d, mint });
    expect(busy).toMatchObject({ outcome: 'failed', error: BUSY_MESSAGE, keyed: res.keyed });
  });

  it('refuses blank, too long and busy drafts without calling the server', async () => {
    const server = fakeServer();
    const blank = await sendMentionDraft({ draft: draft('   '), keyed: null, busyMessage: null, send: server.send, currentDraft: () => draft(''), mint });
    expect(blank).toMatchObject({ outcome: 'refused', error: 'Write a message for the recipients first.' });
    const long = await sendMentionDraft({ draft: draft('x'.repeat(4_001)), keyed: null, busyMessage: null, send: server.send, currentDraft: () => draft(''), mint });
    expect(long).toMatchObject({ outcome: 'refused', error: expect.stringMatching(/too long: .*now 4,001 characters/) });
    const emoji = await sendMentionDraft({ draft: draft('😀'.repeat(2_001)), keyed: null, busyMessage: null, send: server.send, currentDraft: () => draft(''), mint });
    expect(emoji).toMatchObject({ outcome: 'refused', error: expect.stringMatching(/too long: .*now 2,001 characters, 8,004 bytes/) });
    const busy = await sendMentionDraft({ draft: draft('hi'), keyed: null, busyMessage: 'Wait', send: server.send, currentDraft: () => draft(''), mint });
    expect(busy).toMatchObject({ outcome: 'refused', error: 'Wait' });
    expect(server.calls).toHaveLength(0);
  });

  it('sends exactly at the limit (ASCII, CJK)', async () => {
    const server = fakeServer();
    for (const text of ['x'.repeat(4_000), '研'.repeat(2_666)]) {
      const res = await sendMentionDraft({ draft: draft(text), keyed: null, busyMessage: null, send: server.send, currentDraft: () => draft(text), mint });
      expect(res.outcome).toBe('sent');
    }
    expect(server.calls).toHaveLength(2);
  });
});

describe('mentionConfirmation', () => {
  it('names every recipient', async () => {
    expect(mentionConfirmation([{ label: 'A / B' }])).toBe('Sent to A / B. Each result will appear here.');
    expect(mentionConfirmation([{ label: 'A / B' }, { label: 'A / C' }, { label: 'D' }])).toBe('Sent to A / B, A / C and D. Each result will appear here.');
  });
});
