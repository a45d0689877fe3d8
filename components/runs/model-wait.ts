/**
 * Whether a live run is waiting for its model, and since when: what the Steps panel shows as a pending "Waiting for
 * the model…" step, so a slow provider can be told from a stuck run (nothing is recorded until the model answers),
 * and that step turned to "Writing…" once the run's live output streams. Pure: from the recorded events and the
 * live output the page already receives.
 */
import type { LiveOutput } from '@/components/live-output/store';
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

/**
 * The pending step at the end of a live run's steps: waiting for the model (with the time since), or — once the run's
 * live output streams for this wait — the model writing, or an MCP tool reporting progress. Nothing is recorded
 * until the model has answered, so the live output is what tells a slow provider from an answer being written.
 */
export type PendingStep = { kind: 'waiting'; since: string } | { kind: 'writing' } | { kind: 'tool'; server: string; tool: string };

/**
 * What of a run's live output counts as streaming, as one comparable string: its text and whose it is (a tool's or
 * the model's); null when nothing is being written (no output, the run done, a retry that dropped its text).
 */
export function streamedSignature(output: LiveOutput | undefined): string | null {
  if (!output || output.done || !output.text) return null;
  return `${output.tool ? `${output.tool.server}\u0000${output.tool.tool}` : ''}\u0001${output.text}`;
}

/**
 * The live output a wait starts from, which is not this wait's: the registry keeps a response's text until the next
 * one writes, so text already there when a wait begins is an earlier response's (or a tool's progress). A run that
 * has recorded no answer and no tool result yet has no earlier response: whatever it streams is this wait's (so a
 * Steps panel opened mid-answer says "Writing…" at once).
 */
export function waitBaseline(events: readonly ApiRunEvent[], signature: string | null): string | null {
  return events.some((e) => e.type === 'step.assistant' || e.type === 'step.tool') ? signature : null;
}

/** A wait (the time it began; null: none) and the live output it started from. */
export type WaitBaseline = { since: string | null; baseline: string | null };

/** The same wait keeps its baseline; a new one (or none) takes the output as it is now. */
export function followWait(previous: WaitBaseline | null, since: string | null, events: readonly ApiRunEvent[], signature: string | null): WaitBaseline {
  return previous && previous.since === since ? previous : { since, baseline: waitBaseline(events, signature) };
}

/**
 * The pending step: null when the run does not wait for its model (`since` null); "waiting" until its live output
 * differs from the wait's baseline, then what streams: the model's words or a tool's progress.
 */
export function pendingStep(since: string | null, output: LiveOutput | undefined, baseline: string | null): PendingStep | null {
  if (since === null) return null;
  const signature = streamedSignature(output);
  if (signature === null || signature === baseline || !output) return { kind: 'waiting', since };
  return output.tool ? { kind: 'tool', server: output.tool.server, tool: output.tool.tool } : { kind: 'writing' };
}

/** Whole seconds, then minutes and seconds: "0 s", "42 s", "2 min 5 s" (a clock ahead of the server's counts as 0). */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1_000));
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
