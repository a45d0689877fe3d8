/**
 * Whether a live run is waiting for its model, and since when: what the Steps panel shows as a pending "Waiting for
 * the model…" step, so a slow provider can be told from a stuck run (nothing is recorded until the model answers).
 * Pure, from the recorded events only.
 */
import type { ApiRunEvent } from '@/lib/types/run-events';

/**
 * The time (the last event's, ISO) since which the run waits for a model call, or null when the next thing is not a
 * model call: no events yet, a tool call still running, waiting for the person, an answer given, the run finished.
 * Only meaningful while the run is live (the caller checks).
 */
export function modelWaitSince(events: readonly ApiRunEvent[]): string | null {
  const last = events.at(-1);
  if (!last) return null;
  switch (last.type) {
    case 'run.started':
    case 'resume':
    case 'tools.unavailable':
    case 'compaction':
    case 'model.wait':
    case 'step.tool':
      return toolCallsPending(events) ? null : last.at;
    case 'model.call':
      // A failed attempt is tried again (a final failure ends the run); a successful call's step follows at once.
      return last.error ? last.at : null;
    default:
      return null;
  }
}

/** Whether a tool call of the latest answer has no result yet (it runs, or waits for approval). */
function toolCallsPending(events: readonly ApiRunEvent[]): boolean {
  let i = events.length - 1;
  const answered = new Set<string>();
  for (; i >= 0; i--) {
    const event = events[i]!;
    if (event.type === 'step.tool') answered.add(event.toolCallId);
    if (event.type === 'step.assistant') return event.toolCalls.some((call) => !answered.has(call.id));
  }
  return false;
}

/** Whole seconds, then minutes and seconds: "0 s", "42 s", "2 min 5 s" (a clock ahead of the server's counts as 0). */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1_000));
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
