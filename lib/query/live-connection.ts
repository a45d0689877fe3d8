/**
 * The pure parts of following a push stream with a timer as the fallback (use-live-stream.ts wires them to React):
 * what the status line says, and when and how the view polls instead. Kept apart from React so the rules are tested
 * directly (test/ui/live-connection.test.ts).
 */
import { focusManager } from '@tanstack/react-query';
import type { PushStreamStatus } from '@/lib/push-stream';

/** A live view's connection (not a team's or a run's status), as its status line tells it. */
export type LiveConnection =
  | { state: 'connecting' }
  | { state: 'live' }
  | { state: 'polling'; everySeconds: number }
  | { state: 'stopped'; status: number };

/**
 * What a stream stopped for good (401/403/404) means for the view. `stop`: the view says it is disconnected and
 * stops asking (the team pages: their footer says why). `poll`: it keeps polling, so its own read shows the error
 * (the conversation, the teams list and a run's steps, whose pages already explain a 404 or a lost session).
 */
export type WhenClosed = 'stop' | 'poll';

/** The stream's status as the view tells it; `fallbackMs` is what the view polls at while the stream is down. */
export function liveConnection(status: PushStreamStatus, fallbackMs: number, whenClosed: WhenClosed = 'stop'): LiveConnection {
  switch (status.state) {
    case 'connecting':
      return { state: 'connecting' };
    case 'open':
      return { state: 'live' };
    case 'down':
      return { state: 'polling', everySeconds: fallbackMs / 1_000 };
    case 'closed':
      return whenClosed === 'poll' ? { state: 'polling', everySeconds: fallbackMs / 1_000 } : { state: 'stopped', status: status.status };
  }
}

/** The fallback as TanStack query options, spread into a view's query. */
export type LivePoll = {
  refetchInterval: number | false;
  /** A hidden tab skips its polls (TanStack's default, stated here because the fallback relies on it). */
  refetchIntervalInBackground: false;
  /** Back in a tab whose stream is down: read at once rather than at the next tick (nothing pushed meanwhile). */
  refetchOnWindowFocus: 'always' | false;
};

/**
 * None while the stream is up or still opening (its first message says where things stand); while it is down, the
 * view's interval, and a read when the tab is shown again.
 */
export function livePoll(connection: LiveConnection, fallbackMs: number): LivePoll {
  const polling = connection.state === 'polling';
  return { refetchInterval: polling ? fallbackMs : false, refetchIntervalInBackground: false, refetchOnWindowFocus: polling ? 'always' : false };
}

/** Whether the page is shown, and news of it changing: TanStack's focusManager (the visibilitychange event). */
export type PageFocus = { isFocused(): boolean; subscribe(listener: (focused: boolean) => void): () => void };

/**
 * The same fallback for a read outside TanStack (the team feed's `since` read): `tick` every `everyMs` while the
 * page is shown, skipped in a hidden tab, and at once when the tab is shown again. Returns the stop function.
 */
export function startFallbackPoll(options: { everyMs: number; tick: () => void; page?: PageFocus }): () => void {
  const page = options.page ?? focusManager;
  const timer = setInterval(() => {
    if (page.isFocused()) options.tick();
  }, options.everyMs);
  const unsubscribe = page.subscribe((focused) => {
    if (focused) options.tick();
  });
  return () => {
    clearInterval(timer);
    unsubscribe();
  };
}
