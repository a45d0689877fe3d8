import { describe, expect, it } from 'vitest';
import { draftAfterSuccess, keyForSend, newIdempotencyKey } from '@/components/conversations/idempotency';

describe('newIdempotencyKey', () => {
  it('uses crypto.randomUUID when the page has it', () => {
    expect(newIdempotencyKey({ randomUUID: () => 'uuid-1' })).toBe('uuid-1');
    expect(newIdempotencyKey()).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('falls back to Math.random on insecure origins without randomUUID', () => {
    const a = newIdempotencyKey({}, Math.random);
    const b = newIdempotencyKey({ randomUUID: undefined }, Math.random);
    expect(a).toMatch(/^k-[0-9a-f]{32}$/);
    expect(b).toMatch(/^k-[0-9a-f]{32}$/);
    expect(a).not.toBe(b);
    expect(newIdempotencyKey({}, () => 0.5)).toBe(`k-${'8'.repeat(32)}`);
  });
});

describe('keyForSend', () => {
  let n = 0;
  const mint = () => `key-${++n}`;

  it('mints a key for a new draft and reuses it when the same text is sent again', () => {
    const first = keyForSend(null, 'hello', mint);
    const retry = keyForSend(first, 'hello', mint);
    expect(retry.key).toBe(first.key);
  });

  it('mints a new key once the text changed', () => {
    const first = keyForSend(null, 'hello', mint);
    const edited = keyForSend(first, 'hello!', mint);
    expect(edited.key).not.toBe(first.key);
    expect(edited.text).toBe('hello!');
  });
});

describe('draftAfterSuccess', () => {
  it('clears the draft when it still equals what was sent', () => {
    expect(draftAfterSuccess('hi', 'hi')).toEqual({ draft: '', keyed: null });
  });

  it('keeps what the person typed while the send was in flight', () => {
    expect(draftAfterSuccess('hi and more', 'hi')).toEqual({ draft: 'hi and more', keyed: null });
  });
});
