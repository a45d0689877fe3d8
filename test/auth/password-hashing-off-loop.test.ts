import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';

// Its own file: it imports the password module at production cost, which must not leak into other tests.
afterEach(() => vi.unstubAllEnvs());

/**
 * How busy the event loop was while `work` ran (0 = idle in the poll phase the whole time, 1 = never idle), and
 * how many times a 5 ms interval fired meanwhile. Event-loop utilization counts only the loop's own activity, so
 * other processes competing for the CPU don't move it the way wall-clock gaps would.
 */
async function loopDuring(work: () => unknown): Promise<{ utilization: number; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  const start = performance.eventLoopUtilization();
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return { utilization: performance.eventLoopUtilization(start).utilization, ticks };
}

describe('password hashing', () => {
  it('leaves the event loop free while a full-cost hash and verify run (timers keep firing)', async () => {
    // hashPassword at production cost (tests run with SCRYPT_LOG_N=10), so the hash takes long enough to observe.
    vi.stubEnv('SCRYPT_LOG_N', '');
    const full = await import('@/server/auth/passwords');
    expect(full.SCRYPT_PARAMS.N).toBe(2 ** 15);

    const result = await loopDuring(async () => {
      const hash = await full.hashPassword('correct horse battery');
      expect(await full.verifyPassword('correct horse battery', hash)).toBe(true);
    });
    expect(result.ticks).toBeGreaterThan(3);
    expect(result.utilization).toBeLessThan(0.5);
  });

  it('(control) the same measure does see a hash computed on the loop', async () => {
    const { N, r, p } = { N: 2 ** 15, r: 8, p: 3 };
    const result = await loopDuring(() =>
      crypto.scryptSync('correct horse battery', 'salt', 32, { N, r, p, maxmem: 256 * N * r + 2 ** 20 }),
    );
    expect(result.utilization).toBeGreaterThan(0.5);
  });
});
