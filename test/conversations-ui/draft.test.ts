import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { messageTextSchema } from '@/lib/schemas/conversation';
import { checkDraft, NEAR_LIMIT_RATIO } from '@/components/conversations/draft';

const { maxChars, maxBytes } = LIMITS.message;

describe('checkDraft', () => {
  it('accepts ASCII at exactly the character limit and refuses one more', async () => {
    const at = checkDraft('a'.repeat(maxChars));
    expect(at).toMatchObject({ chars: 4000, bytes: 4000, tooLong: false, error: null, nearLimit: true });
    const over = checkDraft('a'.repeat(maxChars + 1));
    expect(over.tooLong).toBe(true);
    expect(over.error).toBe('Message is too long: at most 4,000 characters and 8,000 UTF-8 bytes (now 4,001 characters, 4,001 bytes)');
  });

  it('measures CJK in UTF-8 bytes: 2,666 characters fit, 2,667 are over 8,000 bytes', async () => {
    const at = checkDraft('漢'.repeat(2666));
    expect(at).toMatchObject({ chars: 2666, bytes: 7998, tooLong: false, error: null });
    const over = checkDraft('漢'.repeat(2667));
    expect(over).toMatchObject({ chars: 2667, bytes: 8001, tooLong: true });
    expect(over.error).toBe('Message is too long: at most 4,000 characters and 8,000 UTF-8 bytes (now 2,667 characters, 8,001 bytes)');
  });

  it('counts an emoji as one character and four bytes: 2,000 fit, 2,001 do not', async () => {
    const at = checkDraft('😀'.repeat(maxBytes / 4));
    expect(at).toMatchObject({ chars: 2000, bytes: 8000, tooLong: false, error: null });
    const over = checkDraft('😀'.repeat(maxBytes / 4 + 1));
    expect(over).toMatchObject({ chars: 2001, bytes: 8004, tooLong: true });
    expect(over.error).not.toBeNull();
  });

  it('shows the counter from 80% of either bound', async () => {
    const threshold = maxChars * NEAR_LIMIT_RATIO;
    expect(checkDraft('a'.repeat(threshold - 1)).nearLimit).toBe(false);
    expect(checkDraft('a'.repeat(threshold)).nearLimit).toBe(true);
    // 2,134 CJK characters are far from 4,000 characters but past 80% of the bytes.
    expect(checkDraft('漢'.repeat(2134)).nearLimit).toBe(true);
    expect(checkDraft('hello').nearLimit).toBe(false);
  });

  it('flags blank drafts without an error, and lone surrogates with one', async () => {
    expect(checkDraft('  \n\t ')).toMatchObject({ blank: true, error: null });
    expect(checkDraft('').blank).toBe(true);
    expect(checkDraft('x').blank).toBe(false);
    expect(checkDraft('bad \uD800 half').error).toMatch(/invalid character/);
    expect(checkDraft('good 😀 pair').error).toBeNull();
  });

  it('refuses a control character before sending, as the server does, naming it (tab, newline and CR pass)', async () => {
    expect(checkDraft('ring \u0007 bell').error).toBe('Message contains a control character (U+0007); remove it');
    expect(checkDraft('next line \u0085 (C1)').error).toBe('Message contains a control character (U+0085); remove it');
    expect(checkDraft('列1\t列2\r\n😀').error).toBeNull();
  });
});

describe('checkDraft agrees with the server schema', () => {
  it('accepts exactly what messageTextSchema accepts', async () => {
    const piece = fc.constantFrom('a', ' ', '\n', '\r', '\t', '漢', '😀', '\uD800', 'é', '\u0000', '\u0001', '\u001f', '\u007f', '\u0085', '\u009f');
    const sizes = fc.constantFrom(0, 1, 2000, 2666, 2667, 3999, 4000, 4001);
    fc.assert(
      fc.property(piece, sizes, fc.string({ maxLength: 3 }), (p, n, tail) => {
        const text = p.repeat(n) + tail;
        const check = checkDraft(text);
        const clientAccepts = check.error === null && !check.blank;
        expect(clientAccepts).toBe(messageTextSchema.safeParse(text).success);
      }),
      { numRuns: 300 },
    );
  });
});
