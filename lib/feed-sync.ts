/**
 * One `since` read at a time for an open workspace. Messages and polls that arrive while a read is out fold into
 * a single read right after it (a flood of messages costs two reads, not one per message); a read only starts
 * unasked-for when the feed is behind what was announced; a failed read is retried once after `retryMs` instead
 * of in a tight loop. Kept apart from React so the rules are tested directly (test/ui/feed-sync.test.ts).
 */
export type FeedSync = {
  /** `force`: read even if nothing announced is missing (a poll, or after the page's own mutation). */
  request(force: boolean): void;
  dispose(): void;
};

export function createFeedSync(options: {
  read: () => Promise<void>;
  /** Whether a message announced a revision the feed has not reached yet. */
  behind: () => boolean;
  retryMs: number;
}): FeedSync {
  let running = false;
  let queued = false;
  let queuedForce = false;
  let disposed = false;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const request = (force: boolean) => {
    if (disposed) return;
    if (running) {
      queued = true;
      queuedForce ||= force;
      return;
    }
    if (!force && !options.behind()) return;
    running = true;
    clearTimeout(retry);
    options.read().then(
      () => {
        running = false;
        const again = queued;
        const againForce = queuedForce;
        queued = queuedForce = false;
        if (again || options.behind()) request(againForce);
      },
      () => {
        running = false;
        queued = queuedForce = false;
        if (!disposed) retry = setTimeout(() => request(true), options.retryMs);
      },
    );
  };
  return {
    request,
    dispose() {
      disposed = true;
      clearTimeout(retry);
    },
  };
}
