import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { busySlotTime, jainIndex, slotUtilization } from '@/server/scheduler/fairness';

describe('jainIndex', () => {
  it('is 1 for equal shares and 1/n when one party gets everything', () => {
    expect(jainIndex([5, 5, 5, 5])).toBe(1);
    expect(jainIndex([7])).toBe(1);
    expect(jainIndex([10, 0, 0, 0])).toBeCloseTo(0.25, 12);
  });

  it('matches the formula on a known case', () => {
    // (1+2+3)² / (3 · (1+4+9)) = 36 / 42
    expect(jainIndex([1, 2, 3])).toBeCloseTo(36 / 42, 12);
    expect(jainIndex([100, 99, 101, 100])).toBeGreaterThan(0.99);
  });

  it('treats an empty list or all zeros as perfectly fair', () => {
    expect(jainIndex([])).toBe(1);
    expect(jainIndex([0, 0, 0])).toBe(1);
  });

  it('refuses negative or non-finite allocations', () => {
    expect(() => jainIndex([1, -1])).toThrow(RangeError);
    expect(() => jainIndex([1, Number.NaN])).toThrow(RangeError);
    expect(() => jainIndex([Number.POSITIVE_INFINITY])).toThrow(RangeError);
  });

  it('lies in [1/n, 1] and does not depend on scale or order', () => {
    const allocation = fc.array(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 50 });
    fc.assert(
      fc.property(allocation, fc.integer({ min: 1, max: 1000 }), (values, scale) => {
        const index = jainIndex(values);
        expect(index).toBeGreaterThanOrEqual(1 / values.length - 1e-12);
        expect(index).toBeLessThanOrEqual(1);
        expect(jainIndex(values.map((v) => v * scale))).toBeCloseTo(index, 9);
        expect(jainIndex([...values].reverse())).toBeCloseTo(index, 9);
      }),
    );
  });
});

describe('busySlotTime and slotUtilization', () => {
  it('adds overlapping intervals (one per slot) clipped to the window', () => {
    const intervals = [
      { start: 0, end: 100 },
      { start: 50, end: 150 },
      { start: 180, end: 300 },
      { start: 400, end: 500 },
    ];
    expect(busySlotTime(intervals, 0, 200)).toBe(100 + 100 + 20);
    expect(busySlotTime([], 0, 10)).toBe(0);
    expect(() => busySlotTime([{ start: 5, end: 1 }], 0, 10)).toThrow(RangeError);
    expect(() => busySlotTime([], 10, 0)).toThrow(RangeError);
  });

  it('divides busy slot-time by slots × wall time', () => {
    expect(slotUtilization(720, 8, 100)).toBeCloseTo(0.9, 12);
    expect(slotUtilization(800, 8, 100)).toBe(1);
    expect(slotUtilization(0, 8, 0)).toBe(0);
    expect(() => slotUtilization(10, 0, 100)).toThrow(RangeError);
    expect(() => slotUtilization(-1, 8, 100)).toThrow(RangeError);
  });
});
