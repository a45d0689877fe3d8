/**
 * How an open Steps panel hears of new events (pure parts; use-run-events.ts wires them to the stream). Push
 * first: the run's event stream (GET /runs/:id/events/stream) says the run's head — the highest stored seq and
 * whether it finished. A head past what the panel holds starts one read `after` its last seq; heads that arrive
 * meanwhile fold into the next read, so a flood of steps costs one read at a time, never one per message.
 */
import type { RunEventsFollow } from './event-follow';
import { parsePushObject } from '@/lib/push-stream';

/** One message of the run stream (server/push/run-stream.ts). */
export type RunPush = { runId: string; seq: number; finished: boolean };

/** A message's data, checked field by field (JSON from the wire); null when it is not this run's. */
export function parseRunPush(raw: string, runId: string): RunPush | null {
  const data = parsePushObject(raw);
  if (!data) return null;
  const { runId: id, seq, finished } = data;
  if (id !== runId || !Number.isSafeInteger(seq) || (seq as number) < 0 || typeof finished !== 'boolean') return null;
  return { runId, seq: seq as number, finished };
}

/** Does the panel hold less than the head says exists? (No data yet: the first read is due anyway.) */
export function needsRead(held: RunEventsFollow | undefined, head: RunPush): boolean {
  if (!held) return true;
  return head.seq > held.lastSeq || (head.finished && !held.finished) || !held.caughtUp;
}

/**
 * One read at a time toward the newest head heard. `read` refreshes the held events (it resolves whether or not
 * it succeeded); a read that brought nothing ends the loop, so a failing server is not asked in a tight loop —
 * the next message, or the fallback interval, tries again.
 */
export function createCatchUp(read: () => Promise<unknown>, held: () => RunEventsFollow | undefined) {
  let head: RunPush | null = null;
  let running = false;
  const loop = async () => {
    running = true;
    try {
      while (head && needsRead(held(), head)) {
        const before = held();
        await read();
        const after = held();
        if (before && after && after.lastSeq === before.lastSeq && after.finished === before.finished && after.caughtUp === before.caughtUp) break;
        if (!after) break;
      }
    } finally {
      running = false;
    }
  };
  return {
    /** A head arrived: remember the newest, read unless a read is already on its way (it will see this head). */
    heard(next: RunPush): void {
      head = head ? { runId: next.runId, seq: Math.max(head.seq, next.seq), finished: head.finished || next.finished } : next;
      if (!running) void loop();
    },
  };
}
