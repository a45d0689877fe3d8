import 'server-only';
import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * Why an upload asks V8 for a young-generation collection every few MiB it reads: each chunk of a request body is a
 * fresh buffer outside the JS heap (Node's HTTP parser copies every socket read, and the Request body copies it
 * again), garbage as soon as it is written, but freed only at V8's next scavenge. Nothing else in an upload fills the
 * young generation, so without a nudge a 25 MB body left ~25–30 MB of dead chunks resident (docs/performance.md,
 * "Files"); the Postgres store's lo_put messages are the same kind of garbage. A scavenge costs a millisecond or two;
 * one per PACE_BYTES keeps the dead chunks to a few MiB. Freeing our own copy alone (detaching it) is not enough: the
 * parser's copies are never ours to reach.
 */
export const PACE_BYTES = 4 * 1024 * 1024;

type Gc = (options?: { type: 'minor' | 'major' }) => void;
let scavenge: Gc | null | undefined;

/**
 * V8's gc() function without exposing it to the app: the flag is on only while one new context is made, then off,
 * so no other context (nor globalThis) gets a `gc`. Null where the runtime refuses (the collection is then V8's own).
 */
function gcFunction(): Gc | null {
  if (scavenge !== undefined) return scavenge;
  try {
    v8.setFlagsFromString('--expose-gc');
    scavenge = vm.runInNewContext('gc') as Gc;
  } catch {
    scavenge = null;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
  return scavenge;
}

const minorGc = () => gcFunction()?.({ type: 'minor' });

/** Count bytes read; at each paceBytes, one young-generation collection frees the chunks already consumed. */
export function scavengePacer(paceBytes = PACE_BYTES, collect: () => void = minorGc): (bytes: number) => void {
  let since = 0;
  return (bytes) => {
    since += bytes;
    if (since < paceBytes) return;
    since = 0;
    collect();
  };
}

/**
 * The process's pacer, shared by every upload and store transfer: concurrent uploads ask for one collection per
 * PACE_BYTES between them, not one each.
 */
export const paceScavenges = scavengePacer();
