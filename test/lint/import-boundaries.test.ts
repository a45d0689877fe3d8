// test:pg skip: lint only (ESLint on in-memory probes, no database); its `from '@/server/…'` lines are the probes' text
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The lint rules in eslint.config.mjs themselves: the project's real config linting small in-memory files placed in
 * each folder (lintText with a filePath; the file need not exist, the modules it imports do, because the rule
 * resolves each import to a file). Each forbidden case has an allowed neighbour, so a rule that reports everything
 * fails as surely as one that reports nothing.
 */
const root = path.resolve(__dirname, '../..');
let eslint: ESLint;

/**
 * The type-aware rules (ADR 033) need each linted file in a TypeScript project; the probes exist only in memory, so
 * they go to a default project with the repository's own compiler options (paths, strict). Only where the probes
 * are found changes: the rules and their settings are the real config's.
 */
const PROBES = ['app/*/probe.tsx', 'app/*/probe.ts', 'server/probe.ts', 'server/*/probe.ts', 'server/agents/*/probe.ts', 'scripts/probe.ts', 'test/*/probe.test.ts'];
const findProbes = {
  files: ['app/**/*.{ts,tsx}', 'server/**/*.ts', 'scripts/**/*.ts', 'test/**/*.ts'],
  languageOptions: {
    parserOptions: {
      projectService: {
        allowDefaultProject: PROBES,
        defaultProject: 'tsconfig.json',
        // Every probe path is one more file in the default project (a dozen here; the default bound is 8).
        maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 32,
      },
    },
  },
};

beforeAll(async () => {
  eslint = new ESLint({ cwd: root, overrideConfig: [findProbes] });
  // Loading the TypeScript program for the first type-aware probe takes a while on a busy machine: do it once here.
  await eslint.lintText('export const x = 1;\n', { filePath: path.join(root, 'server/probe.ts') });
}, 180_000);

/** The rule ids reported for `code` as if it were the file at `file` (relative to the project root). */
async function reported(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  const fatal = result!.messages.filter((m) => m.fatal);
  expect(fatal, 'the snippet must parse').toEqual([]);
  return result!.messages.map((m) => m.ruleId ?? 'unknown');
}

const BOUNDARY = 'import/no-restricted-paths';
const ENV = 'no-restricted-properties';

describe('import direction (docs/architecture.md)', () => {
  it.each([
    ['a value from server/', 'components/teams/probe.tsx', "import { getDb } from '@/server/db';\nexport const x = getDb;\n"],
    ['a type from server/', 'components/teams/probe.tsx', "import type { Db } from '@/server/db';\nexport type X = Db;\n"],
    ['server/ by a relative path', 'components/teams/probe.tsx', "import { getDb } from '../../server/db';\nexport const x = getDb;\n"],
    ['a page from app/', 'components/admin/probe.tsx', "import AdminPage from '@/app/(app)/admin/page';\nexport const x = AdminPage;\n"],
    ['re-exporting a layout from app/', 'components/shell/probe.tsx', "export { default } from '@/app/(app)/layout';\n"],
    ['a route handler beside the actions, relatively', 'components/teams/probe.tsx', "import { GET } from '../../app/api/v1/teams/route';\nexport const x = GET;\n"],
    ['a dynamic import of server/', 'components/auth/probe.tsx', "export const load = () => import('@/server/db');\n"],
    ['lib/ importing server/', 'lib/probe.ts', "import { env } from '@/server/env';\nexport const x = env;\n"],
    ['lib/ importing components/', 'lib/schemas/probe.ts', "import { Button } from '@/components/ui/button';\nexport const x = Button;\n"],
    ['lib/ importing a type from app/', 'lib/probe.ts', "import type { signOutAction } from '../app/actions/auth';\nexport type X = typeof signOutAction;\n"],
    ['server/ importing app/', 'server/auth/probe.ts', "import { signOutAction } from '@/app/actions/auth';\nexport const x = signOutAction;\n"],
    ['server/ importing components/', 'server/teams/probe.ts', "import { Button } from '@/components/ui/button';\nexport const x = Button;\n"],
    ['the scheduler importing teams', 'server/scheduler/probe.ts', "import { admitJob } from '@/server/teams/execution';\nexport const x = admitJob;\n"],
    ['the scheduler importing teams relatively', 'server/scheduler/probe.ts', "import { teamJobs } from '../teams/scheduler-jobs';\nexport const x = teamJobs;\n"],
    ['agents importing teams', 'server/agents/probe.ts', "import { requestMessage } from '@/server/teams/member-input';\nexport const x = requestMessage;\n"],
    ['the scheduler importing teams dynamically', 'server/scheduler/probe.ts', "export const load = () => import('@/server/teams/tools/register');\n"],
    ['budgets importing teams', 'server/budgets/probe.ts', "import { touchTeam } from '@/server/teams/revision';\nexport const x = touchTeam;\n"],
    ['budgets importing agents', 'server/budgets/probe.ts', "import { findRun } from '@/server/agents/run-store';\nexport const x = findRun;\n"],
    // The run core and delegation (ADR 049): delegation plugs in through the core's seams, never the reverse.
    // (A module that leads back to the graph, as task-tool does, is a cycle too: scripts/import-cycles.mjs reports it.)
    ['the graph importing delegation', 'server/agents/graph.ts', "import { childContextOf } from './delegation/settings';\nexport const x = childContextOf;\n"],
    ['the executor importing delegation', 'server/agents/run-executor.ts', "import { delegatedRunSetup } from './delegation/child-run';\nexport const x = delegatedRunSetup;\n"],
    ['a guard importing a delegation type', 'server/agents/guards/probe.ts', "import type { TreeBudget } from '@/server/agents/delegation/tree-budget';\nexport type X = TreeBudget;\n"],
    ['a tool importing delegation dynamically', 'server/agents/tools/probe.ts', "export const load = () => import('../delegation/register');\n"],
    ['a tool group re-exporting delegation', 'server/agents/tools/probe.ts', "export { delegateTools } from '@/server/agents/delegation/task-tool';\n"],
  ])('reports %s (%s)', async (_what, file, code) => {
    expect(await reported(file, code)).toEqual([BOUNDARY]);
  });

  it.each([
    ['lib/ and components/', 'components/teams/probe.tsx', "import { LIMITS } from '@/lib/limits';\nimport { Button } from '@/components/ui/button';\nexport const x = [LIMITS, Button];\n"],
    // A 'use server' module is the browser's door (ADR 018): components import their section's actions directly.
    ['a section’s server actions', 'components/teams/probe.tsx', "import { createTeamAction } from '@/app/(app)/teams/actions';\nexport const x = createTeamAction;\n"],
    ['the admin’s price actions, relatively', 'components/admin/probe.tsx', "import { setModelPriceAction } from '../../app/(app)/admin/price-actions';\nexport const x = setModelPriceAction;\n"],
    ['the sign-out action', 'components/shell/probe.tsx', "import { signOutAction } from '@/app/actions/auth';\nexport const x = signOutAction;\n"],
    ['a type from lib/types', 'components/teams/probe.tsx', "import type { ApiTeam } from '@/lib/types/team';\nexport type X = ApiTeam;\n"],
    ['lib/ and packages', 'lib/probe.ts', "import { LIMITS } from './limits';\nimport { z } from 'zod';\nexport const x = [LIMITS, z];\n"],
    ['server/, components/ and app/', 'app/(app)/probe.tsx', "import { getDb } from '@/server/db';\nimport { Button } from '@/components/ui/button';\nimport { signOutAction } from '@/app/actions/auth';\nexport const x = [getDb, Button, signOutAction];\n"],
    ['teams signalling the scheduler and implementing its port', 'server/teams/probe.ts', "import { wakeScheduler } from '@/server/scheduler/signal';\nimport type { JobPort } from '@/server/scheduler/job-port';\nexport const x: [unknown, JobPort?] = [wakeScheduler];\n"],
    ['the scheduler importing db and lib', 'server/scheduler/probe.ts', "import { getDb } from '@/server/db';\nimport { LIMITS } from '@/lib/limits';\nexport const x = [getDb, LIMITS];\n"],
    ['the scheduler and agents importing budgets', 'server/scheduler/probe.ts', "import { teamsAtBudget } from '@/server/budgets/team-budget';\nimport { assertDailyCap } from '@/server/budgets/daily-cap';\nexport const x = [teamsAtBudget, assertDailyCap];\n"],
    ['budgets importing db, http errors and lib', 'server/budgets/probe.ts', "import type { Db } from '@/server/db';\nimport { AppError } from '@/server/http/errors';\nimport { LIMITS } from '@/lib/limits';\nexport const x: [unknown, unknown, Db?] = [AppError, LIMITS];\n"],
    ['agents importing the shared tag neutralizing', 'server/agents/probe.ts', "import { neutralizeTags } from '@/server/trust/neutralize-tags';\nexport const x = neutralizeTags;\n"],
    ['start-up wiring the team port in', 'server/probe.ts', "export const load = () => import('@/server/teams/scheduler-jobs');\n"],
    ['start-up registering delegation', 'server/probe.ts', "export const load = () => import('@/server/agents/delegation/register');\n"],
    [
      'delegation registering through the core’s seams',
      'server/agents/delegation/probe.ts',
      "import { registerResponseGuard } from '../guards';\nimport { registerRunSetup } from '../run-setup';\nimport type { RunContext } from '../run-types';\nimport { registerToolGroup } from '../tools/registry';\nexport const x: [unknown, unknown, unknown, RunContext?] = [registerResponseGuard, registerRunSetup, registerToolGroup];\n",
    ],
    ['the runs service beside delegation', 'server/agents/probe.ts', "import { runChildren } from './delegation/views';\nexport const x = runChildren;\n"],
  ])('allows %s (%s)', async (_what, file, code) => {
    expect(await reported(file, code)).toEqual([]);
  });
});

describe('settings come from the env module', () => {
  it.each([
    ['server/auth/probe.ts', 'export const x = process.env.TRUST_PROXY;\n'],
    ['lib/probe.ts', "export const x = process.env['AGENT_LIMIT_PER_ACCOUNT'];\n"],
    ['app/(app)/probe.tsx', 'const { env } = process;\nexport const x = env;\n'],
    ['components/ui/probe.tsx', 'export const x = process.env.NODE_ENV;\n'],
  ])('reports process.env in %s', async (file, code) => {
    expect(await reported(file, code)).toEqual([ENV]);
  });

  it.each([
    ['server/env.ts', 'export const x = process.env.TRUST_PROXY;\n'],
    ['lib/env-setting.ts', 'export const x = process.env.TRUST_PROXY;\n'],
    ['server/auth/probe.ts', "import { env } from '@/server/env';\nexport const x = env.trustProxy;\n"],
    ['test/env/probe.test.ts', 'export const x = process.env.DATA_DIR;\n'],
  ])('allows %s', async (file, code) => {
    expect(await reported(file, code)).toEqual([]);
  });
});

const FLOATING = '@typescript-eslint/no-floating-promises';
const MISUSED = '@typescript-eslint/no-misused-promises';
const SQLITE_ONLY = 'no-restricted-syntax';

// A tiny async function of the snippet's own, so these cases don't depend on a domain module's signature.
const ASYNC = 'async function load(): Promise<number> { return 1; }\n';

describe('the data layer is asynchronous and engine-neutral (ADR 033)', { timeout: 60_000 }, () => {
  it.each([
    ['a query not awaited', 'server/auth/probe.ts', "import { getDb, schema } from '@/server/db';\nexport async function f() {\n  getDb().select().from(schema.users);\n}\n", [FLOATING]],
    ['a write inside writeTx not awaited', 'server/teams/probe.ts', "import { schema, writeTx } from '@/server/db';\nexport async function f() {\n  await writeTx(async (tx) => {\n    tx.delete(schema.users);\n  });\n}\n", [FLOATING]],
    ['a writeTx not awaited', 'app/(app)/probe.ts', "import { schema, writeTx } from '@/server/db';\nexport function f() {\n  writeTx((tx) => tx.delete(schema.users));\n}\n", [FLOATING]],
    ['a call of an async function not awaited', 'scripts/probe.ts', `${ASYNC}export function f() {\n  load();\n}\n`, [FLOATING]],
    ['a test not awaiting', 'test/env/probe.test.ts', `${ASYNC}export function f() {\n  load();\n}\n`, [FLOATING]],
    ['a promise in a condition', 'server/auth/probe.ts', `${ASYNC}export function f() {\n  return load() ? 'yes' : 'no';\n}\n`, [MISUSED]],
    ['a query in an if', 'server/agents/probe.ts', "import { getDb, schema } from '@/server/db';\nexport function f() {\n  if (getDb().select().from(schema.users)) return 1;\n  return 0;\n}\n", [MISUSED]],
    ['.get() outside server/db', 'server/auth/probe.ts', "import { getDb, schema } from '@/server/db';\nexport const f = () => getDb().select().from(schema.users).get();\n", [SQLITE_ONLY]],
    ['.all() in a script', 'scripts/probe.ts', "import { getDb, schema } from '@/server/db';\nexport const f = () => getDb().select().from(schema.users).all();\n", [SQLITE_ONLY]],
    ['.run() in app/', 'app/(app)/probe.ts', "import { getDb, schema } from '@/server/db';\nexport const f = () => getDb().delete(schema.users).run();\n", [SQLITE_ONLY]],
    ['$client outside server/db', 'app/(app)/probe.ts', "import { getDb } from '@/server/db';\nexport const f = () => getDb().$client;\n", [SQLITE_ONLY]],
  ])('reports %s (%s)', async (_what, file, code, rules) => {
    expect(await reported(file, code)).toEqual(rules);
  });

  it.each([
    [
      'awaited queries, writes in writeTx and an awaited condition',
      'server/auth/probe.ts',
      "import { getDb, schema, writeTx } from '@/server/db';\n" +
        ASYNC +
        'export async function f() {\n' +
        '  const first = (await getDb().select().from(schema.users).limit(1))[0];\n' +
        '  await writeTx(async (tx) => {\n    await tx.delete(schema.users);\n  });\n' +
        "  return (await load()) ? first : undefined;\n}\n",
    ],
    ['a fire-and-forget with its rejection handled', 'server/teams/probe.ts', `${ASYNC}export function f() {\n  void load().catch(() => {});\n}\n`],
    [
      'hand-written SQL with its parameters',
      'scripts/probe.ts',
      "import { statement } from '@/server/db/statement';\nconst q = statement('select id from users where id = ?');\nexport const f = (id: string) => q.get<{ id: string }>(id);\n",
    ],
    [
      'SQLite-only calls inside server/db',
      'server/db/probe.ts',
      "import { getDb } from './index';\nimport * as schema from './sqlite-schema';\nexport const f = () => getDb().select().from(schema.users).get();\nexport const g = () => getDb().$client;\n",
    ],
  ])('allows %s (%s)', async (_what, file, code) => {
    expect(await reported(file, code)).toEqual([]);
  });
});
