import 'server-only';
import { LIMITS } from '@/lib/limits';
import { AppError } from '@/server/http/errors';
import { onShutdown } from '@/server/lifecycle';

/** Every open stream's close function, per account: the per-account cap counts them, shutdown closes them. */
type Registry = Map<string, Set<() => void>>;
const g = globalThis as unknown as { __ensemblePushStreams?: Registry };
const registry = (): Registry => (g.__ensemblePushStreams ??= new Map());

export const openStreamCount = (accountId: string): number => registry().get(accountId)?.size ?? 0;

/** Take one of the account's stream slots or refuse with 429 + Retry-After; the returned function gives it back. */
export function claimStreamSlot(accountId: string, close: () => void): () => void {
  const open = registry().get(accountId) ?? new Set();
  if (open.size >= LIMITS.push.maxStreamsPerAccount) {
    throw new AppError(
      429,
      'too_many_streams',
      `At most ${LIMITS.push.maxStreamsPerAccount} live update streams per account: close a tab, or poll`,
      undefined,
      { 'retry-after': String(LIMITS.push.retryAfterSeconds) },
    );
  }
  open.add(close);
  registry().set(accountId, open);
  return () => {
    open.delete(close);
    if (!open.size && registry().get(accountId) === open) registry().delete(accountId);
  };
}

/** End every open stream (server shutdown): clients reconnect to the next process with Last-Event-ID. */
export function closeAllStreams(): void {
  for (const open of [...registry().values()]) for (const close of [...open]) close();
}

onShutdown('push-streams', closeAllStreams);
