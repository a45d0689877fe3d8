import path from 'node:path';

/** How the test suites resolve the app's modules: `@/` from the root, and `server-only` as nothing (tests import server code). */
export const appResolve = (root: string) => ({
  alias: {
    '@': path.resolve(root),
    'server-only': path.resolve(root, 'test/support/server-only.ts'),
  },
});
