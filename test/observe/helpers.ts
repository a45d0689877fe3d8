import type { ApiRunEvent, RunEventData } from '@/lib/types/run-events';
import { readRunEvents } from '@/server/agents/observe/read';

/** Every stored event of a run, in seq order. */
export async function eventsOf(runId: string): Promise<ApiRunEvent[]> {
  return (await readRunEvents(runId, 0, 100_000)).events;
}

export const typesOf = (events: readonly ApiRunEvent[]) => events.map((e) => e.type);

export function ofType<T extends RunEventData['type']>(events: readonly ApiRunEvent[], type: T) {
  return events.filter((e): e is Extract<ApiRunEvent, { type: T }> => e.type === type);
}

/** seq numbers are 1, 2, 3 … with no gap or repeat. */
export function expectDense(events: readonly ApiRunEvent[]): void {
  const seqs = events.map((e) => e.seq);
  const expected = seqs.map((_, i) => i + 1);
  if (JSON.stringify(seqs) !== JSON.stringify(expected)) throw new Error(`seq not dense: ${JSON.stringify(seqs)}`);
}
