/**
 * "Something changed, re-read it" from a push stream, without a read per message. TanStack's plain invalidation
 * cancels a read on the wire and starts another for every message, so a burst of messages (one change announced on
 * several streams, or several changes in one tick) became a burst of requests that the server still answers.
 *
 * Here each matching query gets at most one read on the wire and one queued after it: a read already on its way
 * may have started before the change, so it is let land (never cancelled) and one more read follows; messages that
 * arrive meanwhile fold into that one. Only queries on screen refetch; the others are marked stale (read on mount).
 */
import type { Query, QueryClient, QueryKey } from '@tanstack/react-query';

type Filters = { queryKey: QueryKey; exact?: boolean };

/** Queries with a re-read loop running; `again`: a message came after the loop's current read started. */
const following = new WeakMap<Query, { again: boolean }>();

export function refreshOnPush(client: QueryClient, filters: Filters): void {
  for (const query of client.getQueryCache().findAll(filters)) {
    const running = following.get(query);
    if (running) {
      running.again = true;
      continue;
    }
    const loop = { again: true };
    following.set(query, loop);
    void reread(client, query.queryKey, loop).finally(() => following.delete(query));
  }
}

async function reread(client: QueryClient, queryKey: QueryKey, loop: { again: boolean }): Promise<void> {
  const exact = { queryKey, exact: true };
  while (loop.again) {
    loop.again = false;
    // A read already on the wire may predate the change: join it, then read once more.
    if (client.isFetching(exact) > 0) await client.refetchQueries(exact, { cancelRefetch: false });
    await client.invalidateQueries(exact, { cancelRefetch: false });
  }
}
