import { defineConfig, devices } from '@playwright/test';
import { BASE_URL, E2E_PORT, SERVER_ENV, chromiumPath } from './e2e/env';

/**
 * End-to-end tests against a production build (`next start`) with its own data directory.
 * Run them with `npm run test:e2e`, which finds or installs Chromium and builds into NEXT_DIST_DIR first;
 * `npx playwright test` alone works once that build exists.
 */
export default defineConfig({
  testDir: './e2e',
  fullyParallel: false,
  // Two workers, CI too: many tests spend seconds waiting (a model's sleep, a quiet window), and one worker left a
  // quarter of CI's two cores idle; two took 130 tests from 7.9 to 5.8 min (docs/performance.md, CI). Every test has
  // its own account, so workers share nothing but the server. E2E_WORKERS overrides.
  workers: Number(process.env.E2E_WORKERS) || 2,
  retries: 0,
  forbidOnly: true,
  timeout: 30_000,
  // 10 s per expectation and action: on a day the two-core CI machine ran 2–2.5× slower, three waits of 5 s (a first
  // render, a hydration, a card after a server action) ran out with the cores saturated (docs/performance.md, CI). A
  // wait ends as soon as its condition holds, so the bound costs nothing while the app is right.
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list']] : [['list'], ['html', { open: 'never' }]],
  use: {
    baseURL: BASE_URL,
    actionTimeout: 10_000,
    navigationTimeout: 10_000,
    // A trace records every action's snapshots, then is thrown away when the test passes: a fifth of the suite's wall
    // time and a third of its CPU on two cores (docs/performance.md, CI). Where nobody can open one (CI keeps only the
    // log) it is off; locally a failure keeps its trace. E2E_TRACE=retain-on-failure (or off) overrides.
    trace: (process.env.E2E_TRACE as 'off' | 'retain-on-failure' | undefined) ?? (process.env.CI ? 'off' : 'retain-on-failure'),
    screenshot: 'only-on-failure',
    // The person prefers reduced motion: spinners and pulses stand still (motion-safe:), so a page waiting on a run
    // draws no frames. Each frame costs the renderer, the compositor and the browser's process on CI's two cores:
    // 26 tests that wait on runs took 134 CPU seconds this way against 151–157 (docs/performance.md, CI). No test
    // looks at motion; the product honours the setting for its users too.
    reducedMotion: 'reduce',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        launchOptions: {
          executablePath: chromiumPath(),
          args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
            '--no-first-run',
            '--disable-quic',
            // V8 without its optimizing compiler: a test's page lives seconds, too short to repay compiling its hot
            // functions again (about 4 % of the browser tests' CPU; docs/performance.md, CI).
            '--js-flags=--no-opt',
          ],
        },
      },
    },
  ],
  webServer: {
    // Started directly (not through npm) so stopping it stops the server itself. Idle connections are kept longer
    // than Node's 5 s: the tests' API client reuses them, and one closed by the server as a request went out was an
    // ECONNRESET in CI.
    command: `node_modules/.bin/next start --port ${E2E_PORT} --hostname 127.0.0.1 --keepAliveTimeout 120000`,
    url: `${BASE_URL}/api/health`,
    env: { ...SERVER_ENV, PORT: String(E2E_PORT) },
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'pipe',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 5_000 },
  },
});
