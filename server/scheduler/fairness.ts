import 'server-only';

// Pure measurement helpers for the scheduler benchmark (scripts/bench-scheduler). No I/O, no clock:
// callers pass the numbers they measured.

function assertMeasure(value: number, what: string): void {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${what} must be a finite number ≥ 0, got ${value}`);
}

/**
 * Jain's fairness index: (Σx)² / (n · Σx²). 1 means every party got the same; 1/n means one party got
 * everything. An empty list or all zeros counts as perfectly fair (nobody got more than anybody).
 */
export function jainIndex(values: readonly number[]): number {
  let sum = 0;
  let sumOfSquares = 0;
  for (const value of values) {
    assertMeasure(value, 'allocation');
    sum += value;
    sumOfSquares += value * value;
  }
  if (values.length === 0 || sumOfSquares === 0) return 1;
  // Clamp: float rounding can land a hair above 1 for equal allocations.
  return Math.min(1, (sum * sum) / (values.length * sumOfSquares));
}

export interface BusyInterval {
  readonly start: number;
  readonly end: number;
}

/** Total busy time of the intervals, each clipped to [windowStart, windowEnd]. Overlaps add up
 * (each interval is one slot being busy), which is what slot-time means. */
export function busySlotTime(intervals: readonly BusyInterval[], windowStart: number, windowEnd: number): number {
  if (!Number.isFinite(windowStart) || !Number.isFinite(windowEnd) || windowEnd < windowStart) {
    throw new RangeError('window must be finite with end ≥ start');
  }
  let total = 0;
  for (const { start, end } of intervals) {
    if (!Number.isFinite(start) || !Number.isFinite(end) || end < start) {
      throw new RangeError('interval must be finite with end ≥ start');
    }
    total += Math.max(0, Math.min(end, windowEnd) - Math.max(start, windowStart));
  }
  return total;
}

/** Slot utilization: busy slot-time ÷ (slots × wall time). 0 when the wall time is 0. */
export function slotUtilization(busyTime: number, slots: number, wallTime: number): number {
  assertMeasure(busyTime, 'busy time');
  assertMeasure(wallTime, 'wall time');
  if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`slots must be a positive integer, got ${slots}`);
  if (wallTime === 0) return 0;
  return busyTime / (slots * wallTime);
}
