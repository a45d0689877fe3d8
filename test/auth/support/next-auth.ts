import { register } from 'node:module';

// Let Node load next-auth as it is published (see next-esm-hooks.mjs). Import this before anything imports next-auth.
// Once per process: the files that import this share a worker (support/isolated-suites.mts), and a hook stays
// registered for the process's life.
const registered = Symbol.for('ensemble.test.next-esm-hooks');
const flags = globalThis as Record<symbol, boolean>;
if (!flags[registered]) {
  register('./next-esm-hooks.mjs', import.meta.url);
  flags[registered] = true;
}
