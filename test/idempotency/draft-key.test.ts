import { describe, expect, it } from 'vitest';
import { draftSignature, draftStillEquals, forgetKeyAfterSuccess, keyForDraft, teamDraftSignature } from '@/lib/idempotency/draft-key';
import { newClientId } from '@/lib/idempotency/client-id';

const counter = () => {
  let n = 0;
  return () => `k${++n}`;
};

describe('draft keys', () => {
  it('keeps the key while text and recipients are unchanged (a retry reuses it)', () => {
    const next = counter();
    const a = keyForDraft(null, draftSignature('hello', ['m1', 'm2']), next);
    const retry = keyForDraft(a, draftSignature('hello', ['m2', 'm1']), next);
    expect(retry.key).toBe(a.key);
  });

  it('changes the key when the text or the recipients change', () => {
    const next = counter();
    const a = keyForDraft(null, draftSignature('hello', ['m1']), next);
    const b = keyForDraft(a, draftSignature('hello!', ['m1']), next);
    const c = keyForDraft(b, draftSignature('hello!', ['m1', 'm2']), next);
    expect(new Set([a.key, b.key, c.key]).size).toBe(3);
  });

  it('gives identical content a new key after a successful send', () => {
    const next = counter();
    const sent = keyForDraft(null, draftSignature('same', ['m1']), next);
    const after = forgetKeyAfterSuccess(sent, sent.key);
    expect(after).toBeNull();
    expect(keyForDraft(after, draftSignature('same', ['m1']), next).key).not.toBe(sent.key);
    const other = keyForDraft(null, draftSignature('other', ['m1']), next);
    expect(forgetKeyAfterSuccess(other, sent.key)).toBe(other);
  });

  it('clears a draft only if it still equals what was sent', () => {
    expect(draftStillEquals({ text: 'x', memberIds: ['a', 'b'] }, { text: 'x', memberIds: ['b', 'a'] })).toBe(true);
    expect(draftStillEquals({ text: 'x more', memberIds: ['a'] }, { text: 'x', memberIds: ['a'] })).toBe(false);
    expect(draftStillEquals({ text: 'x', memberIds: ['a'] }, { text: 'x', memberIds: ['a', 'b'] })).toBe(false);
  });

  it('distinguishes team drafts field by field', () => {
    expect(teamDraftSignature('a', 'b', ['x'])).not.toBe(teamDraftSignature('a b', '', ['x']));
  });
});

describe('newClientId', () => {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('uses randomUUID when present', () => {
    expect(newClientId({ randomUUID: () => '00000000-0000-4000-8000-000000000000' })).toBe(
      '00000000-0000-4000-8000-000000000000',
    );
  });

  it('falls back to getRandomValues on insecure origins (no randomUUID)', () => {
    const getRandomValues = <T extends ArrayBufferView | null>(a: T) => {
      new Uint8Array(a!.buffer).fill(0xff);
      return a;
    };
    const id = newClientId({ getRandomValues } as Partial<Crypto>);
    expect(id).toMatch(uuid);
  });

  it('falls back when randomUUID throws or no crypto exists, and ids differ', () => {
    const throwing = {
      randomUUID: () => {
        throw new Error('insecure');
      },
    } as unknown as Partial<Crypto>;
    expect(newClientId(throwing)).toMatch(uuid);
    const ids = new Set(Array.from({ length: 50 }, () => newClientId(undefined)));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(uuid);
  });
});

describe('one key module for every send (plain conversation messages too)', () => {
  it('keys a message without recipients by its text alone: a retry reuses the key, an edit does not', () => {
    const next = counter();
    const first = keyForDraft(null, draftSignature('hello', []), next);
    expect(keyForDraft(first, draftSignature('hello', []), next).key).toBe(first.key);
    expect(keyForDraft(first, draftSignature('hello ', []), next).key).not.toBe(first.key);
    // The same text with a recipient is different content: it must not reuse the plain message's key.
    expect(keyForDraft(first, draftSignature('hello', ['m1']), next).key).not.toBe(first.key);
  });

  it('mints keys the server accepts as idempotency keys', async () => {
    const { idempotencyKeySchema } = await import('@/lib/schemas/conversation');
    expect(idempotencyKeySchema.safeParse(newClientId()).success).toBe(true);
    expect(idempotencyKeySchema.safeParse(newClientId({})).success).toBe(true);
  });
});
