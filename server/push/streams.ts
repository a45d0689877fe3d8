import 'server-only';
import { LIMITS } from '@/lib/limits';
import { AppError } from '@/server/http/errors';
import { onShutdown } from '@/server/lifecycle';
import { sharedStreamSlots } from './shared-stream-slots';

/** Every open stream's close function, per account: the per-account cap counts them, shutdown closes them. */
type Registry = Map<string, Set<() => void>>;
const g = globalThis as unknown as { __ensemblePushStreams?: Registry };
const registry = (): Registry => (g.__ensemblePushStreams ??= new Map());

export const openStreamCount = (accountId: string): number => registry().get(accountId)?.size ?? 0;

const tooManyStreams = () =>
  new AppError(
    429,
    'too_many_streams',
    `At most ${LIMITS.push.maxStreamsPerAccount} live update streams per account: close a tab, or poll`,
    undefined,
    { 'retry-after': String(LIMITS.push.retryAfterSeconds) },
  );

/**
 * Take one of the account's stream slots or refuse with 429 + Retry-After; the returned function gives it back.
 * With several processes on one database the slots are counted across all of them (shared-stream-slots.ts); the
 * stream is registered here (for shutdown) only once its slot is taken.
 */
export async function claimStreamSlot(accountId: string, close: () => void): Promise<() => void> {
  const max = LIMITS.push.maxStreamsPerAccount;
  if ((registry().get(accountId)?.size ?? 0) >= max) throw tooManyStreams();
  const shared = sharedStreamSlots();
  const releaseShared = shared ? await shared.take(accountId, max) : async () => {};
  if (!releaseShared) throw tooManyStreams();
  const open = registry().get(accountId) ?? new Set();
  open.add(close);
  registry().set(accountId, open);
  return () => {
    if (!open.delete(close)) return;
    void releaseShared();
    if (!open.size && registry().get(accountId) === open) registry().delete(accountId);
  };
}

/** End every open stream (server shutdown): clients reconnect to the next process with Last-Event-ID. */
export function closeAllStreams(): void {
  for (const open of [...registry().values()]) for (const close of [...open]) close();
}

onShutdown('push-streams', closeAllStreams);
