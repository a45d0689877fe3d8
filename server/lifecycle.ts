import 'server-only';

type Hook = () => void | Promise<void>;
type LifecycleState = { hooks: Map<string, Hook>; stopping: Promise<void> | null };

// Route bundles and instrumentation may load separate copies of this module: one registry per process.
const g = globalThis as unknown as { __ensembleLifecycle?: LifecycleState };
const state = (): LifecycleState => (g.__ensembleLifecycle ??= { hooks: new Map(), stopping: null });

/**
 * Register work to do when the process is asked to stop (stop taking new work, abort in-flight steps so they
 * are recovered on the next start). Keyed by name, so a second copy of a module replaces rather than doubles it.
 */
export function onShutdown(name: string, hook: Hook): void {
  state().hooks.set(name, hook);
}

export const isShuttingDown = (): boolean => state().stopping !== null;

/**
 * Run every hook, newest first, each bounded by `timeoutMs` and isolated from the others' failures. Calling it
 * again returns the same promise, so duplicate signals (Ctrl+C in a shell sends two) run the hooks once.
 */
export function runShutdownHooks(timeoutMs = 5_000): Promise<void> {
  const s = state();
  s.stopping ??= (async () => {
    for (const [name, hook] of [...s.hooks].reverse()) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      try {
        const outcome = await Promise.race([Promise.resolve().then(hook), timeout]);
        if (outcome === 'timeout') console.error(`[ensemble] shutdown step "${name}" did not finish in ${timeoutMs} ms`);
      } catch (error) {
        console.error(`[ensemble] shutdown step "${name}" failed:`, error);
      } finally {
        clearTimeout(timer);
      }
    }
  })();
  return s.stopping;
}
