import { describe, expect, it, vi } from 'vitest';

// A fresh registry per test: the module keeps its state on globalThis, so clear it and re-import.
async function freshLifecycle() {
  delete (globalThis as { __ensembleLifecycle?: unknown }).__ensembleLifecycle;
  vi.resetModules();
  return import('@/server/lifecycle');
}

describe('shutdown hooks', () => {
  it('run newest first, once, even when shutdown is requested twice', async () => {
    const { onShutdown, runShutdownHooks, isShuttingDown } = await freshLifecycle();
    const order: string[] = [];
    onShutdown('database', () => void order.push('database'));
    onShutdown('scheduler', async () => {
      await Promise.resolve();
      order.push('scheduler');
    });
    expect(isShuttingDown()).toBe(false);

    const first = runShutdownHooks();
    const second = runShutdownHooks();
    expect(second).toBe(first);
    expect(isShuttingDown()).toBe(true);
    await first;
    expect(order).toEqual(['scheduler', 'database']);
  });

  it('a failing or hanging hook does not stop the others', async () => {
    const { onShutdown, runShutdownHooks } = await freshLifecycle();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const ran: string[] = [];
    onShutdown('last', () => void ran.push('last'));
    onShutdown('hangs', () => new Promise<void>(() => {}));
    onShutdown('throws', () => {
      throw new Error('boom');
    });

    await runShutdownHooks(50);
    expect(ran).toEqual(['last']);
    expect(errors.mock.calls.map((call) => String(call[0]))).toEqual([
      expect.stringContaining('"throws" failed'),
      expect.stringContaining('"hangs" did not finish in 50 ms'),
    ]);
    errors.mockRestore();
  });

  it('registering the same name again replaces the hook (a second module copy does not double it)', async () => {
    const { onShutdown, runShutdownHooks } = await freshLifecycle();
    const calls: string[] = [];
    onShutdown('scheduler', () => void calls.push('first copy'));
    onShutdown('scheduler', () => void calls.push('second copy'));
    await runShutdownHooks();
    expect(calls).toEqual(['second copy']);
  });
});
