/**
 * A random v4 UUID for client-side idempotency keys. `crypto.randomUUID` only exists in secure contexts
 * (HTTPS or localhost), so a self-hosted server on plain HTTP falls back to `getRandomValues`, which exists
 * everywhere, and as a last resort to Math.random (keys only need to be unique, not secret).
 */
export function newClientId(cryptoImpl: Partial<Crypto> | undefined = globalThis.crypto): string {
  if (cryptoImpl && typeof cryptoImpl.randomUUID === 'function') {
    try {
      return cryptoImpl.randomUUID();
    } catch {
      // Some browsers throw instead of leaving the method out on insecure origins.
    }
  }
  const bytes = new Uint8Array(16);
  if (cryptoImpl && typeof cryptoImpl.getRandomValues === 'function') {
    cryptoImpl.getRandomValues(bytes);
  } else {
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  }
  bytes[6] = (bytes[6]! & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
