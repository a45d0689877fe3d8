/**
 * Idempotency keys for sends. A draft keeps one key for as long as its text stays the same, so a retry after a
 * lost response finds the run the first attempt created instead of starting a second one.
 */

type CryptoLike = { randomUUID?: () => string } | undefined;

/** crypto.randomUUID is missing on insecure (plain HTTP, non-localhost) origins, hence the fallback. */
export function newIdempotencyKey(cryptoImpl: CryptoLike = globalThis.crypto, random: () => number = Math.random): string {
  if (cryptoImpl && typeof cryptoImpl.randomUUID === 'function') return cryptoImpl.randomUUID();
  let out = 'k-';
  for (let i = 0; i < 32; i++) out += Math.floor(random() * 16).toString(16);
  return out;
}

/** The text a key was minted for. */
export type KeyedDraft = { text: string; key: string };

/** Reuse the key when the same text is sent again; mint a new one when the text changed. */
export function keyForSend(previous: KeyedDraft | null, text: string, mint: () => string = newIdempotencyKey): KeyedDraft {
  if (previous && previous.text === text) return previous;
  return { text, key: mint() };
}

/**
 * After a successful send: clear the draft only if it still holds what was sent (the person may have typed on
 * while the request was in flight). The key is spent either way.
 */
export function draftAfterSuccess(currentDraft: string, sentText: string): { draft: string; keyed: null } {
  return { draft: currentDraft === sentText ? '' : currentDraft, keyed: null };
}
