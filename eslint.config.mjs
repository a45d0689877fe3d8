import next from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

const ARCHITECTURE = 'docs/architecture.md "Import direction"';

/** The run core: what delegation plugs into through its seams (docs/decisions/049-run-core-seams.md). */
const RUN_CORE = [
  './server/agents/graph.ts',
  './server/agents/guards',
  './server/agents/tools',
  './server/agents/run-executor.ts',
  './server/agents/run-types.ts',
  './server/agents/run-setup.ts',
];

/** The server action modules under app/ ('use server' files), as absolute globs: what components may import from app/. */
export const ACTION_MODULES = ['**/app/**/actions.ts', '**/app/**/*-actions.ts', '**/app/actions/*.ts'];

/**
 * The import direction of docs/architecture.md: `app` → `components` → `lib`; `app` → `server` → `lib`; and inside
 * server, the scheduler never imports the team domain (it owns its port, server/scheduler/job-port.ts), and neither
 * do agents (teams build on agents, never the reverse), and the run core never imports delegation (it plugs in through
 * the core's seams). Checked by
 * eslint-plugin-import's no-restricted-paths (registered by eslint-config-next), which resolves every import —
 * the `@/` alias, relative paths, `import type`, `export … from` and `import()` — to the file it names, so
 * neither a relative path nor a type-only import slips past. test/lint/import-boundaries.test.ts checks the rules.
 */
const importBoundaries = [
  {
    target: './lib',
    from: ['./server', './app', './components'],
    message: `lib/ is safe in the browser and on the server: it imports only lib/ and packages (${ARCHITECTURE}).`,
  },
  {
    target: './components',
    from: './server',
    message: `components never import server/, not even types: shared types live in lib/types, and server work is reached through a server action (${ARCHITECTURE}).`,
  },
  {
    // A 'use server' module is the browser's door (ADR 018): a client component that imports it gets references
    // that POST to the action, never the server code behind it. test/lint/action-modules.test.ts checks that every
    // file these patterns admit is one.
    target: './components',
    from: ['./app/**/*'],
    except: ACTION_MODULES,
    message: `components never import app/, except its server action modules (app/**/actions.ts, app/**/*-actions.ts, app/actions/*.ts), which they import directly (${ARCHITECTURE}, docs/decisions/018-server-actions.md).`,
  },
  {
    target: './server',
    from: ['./app', './components'],
    message: `server/ never imports app/ or components/ (${ARCHITECTURE}).`,
  },
  {
    target: './server/scheduler',
    from: './server/teams',
    message: `The scheduler never imports the team domain: it owns its port (server/scheduler/job-port.ts), start-up wires the team implementation in (${ARCHITECTURE}).`,
  },
  {
    target: './server/budgets',
    from: ['./server/teams', './server/agents', './server/scheduler'],
    message: `Budgets are SQL over runs and teams only: the scheduler and agents both use them, so they import neither the team domain, agents nor the scheduler (${ARCHITECTURE}, docs/decisions/023-token-budgets.md).`,
  },
  {
    target: './server/agents',
    from: './server/teams',
    message: `Agents know nothing of teams: the team domain registers its tools and context through the agents' seams; what both need (tag neutralizing) lives in server/trust (${ARCHITECTURE}).`,
  },
  {
    target: RUN_CORE,
    from: './server/agents/delegation',
    message: `The run core (graph, guards, tools, executor and their seams) never imports delegation, not even a type: delegation registers its tool group, guard, shared budget and child-run hook at start-up (server/agents/delegation/register.ts; ${ARCHITECTURE}, docs/decisions/049-run-core-seams.md).`,
  },
];

/**
 * Where process.env may be read: rawEnv in lib/env-setting.ts is the one reader; server/env.ts (zod) and
 * lib/env-limits.ts (plain parsers, so pages ship no zod) declare the settings through it (ADR 051, ADR 019).
 */
const ENV_READERS = ['server/env.ts', 'lib/env-setting.ts'];

const config = [
  ...next,
  ...nextTs,
  {
    // test/lint/fixtures: code that breaks the rules on purpose, linted by test/lint/import-boundaries.test.ts.
    ignores: ['.next/**', '.next-*/**', 'node_modules/**', 'drizzle/**', 'data/**', 'test-results/**', 'playwright-report/**', 'next-env.d.ts', 'test/lint/fixtures/**'],
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['app/**', 'components/**', 'lib/**', 'server/**'],
    rules: {
      'import/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: importBoundaries }],
    },
  },
  {
    // The data layer is asynchronous (ADR 033): a query or writeTx that is not awaited runs after its caller moved
    // on, and a promise in a condition is always true. Type-aware, so both are caught wherever they hide. A query
    // builder is a thenable, not a Promise (drizzle's QueryPromise): checkThenables, or an unawaited query passes.
    files: ['app/**/*.{ts,tsx}', 'server/**/*.ts', 'scripts/**/*.ts', 'test/**/*.ts', 'test-pg/**/*.ts', 'e2e/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', { checkThenables: true }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    // SQLite-only calls stay inside server/db (ADR 033 §2): domain code awaits the shared builder subset, and
    // hand-written SQL goes through server/db/statement.ts.
    files: ['server/**/*.ts', 'app/**/*.{ts,tsx}', 'scripts/**/*.ts'],
    // …and the checkpoint store, which keeps a SQLite implementation (checkpoints.db) beside its Postgres one.
    ignores: ['server/db/**', 'server/agents/checkpoint/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[arguments.length=0] > MemberExpression.callee[property.name=/^(get|all|run)$/]",
          message: 'SQLite-only (ADR 033): await the query instead (`(await q)[0]` for .get(), `await q` for .all()/.run()).',
        },
        {
          selector: "MemberExpression[property.name='$client']",
          message: 'The driver stays inside server/db (ADR 033): use the query builder or server/db/statement.ts.',
        },
      ],
    },
  },
  {
    files: ['app/**', 'components/**', 'lib/**', 'server/**'],
    ignores: ENV_READERS,
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read settings from server/env.ts (env.*) or lib/env-limits.ts, where each is declared and parsed once (docs/architecture.md "Settings from the environment").' },
      ],
    },
  },
];

export default config;
