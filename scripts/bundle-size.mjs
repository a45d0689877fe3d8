#!/usr/bin/env node
/**
 * `npm run size`: each app page's first-load JavaScript, gzip, read from an existing `next build` output
 * (NEXT_DIST_DIR, default .next). Run a build first; this script never builds.
 *
 * What counts as first load for a page (Turbopack build output, Next 16):
 *  - the root main files of its build-manifest.json (framework + Turbopack runtime), which every page loads;
 *  - every chunk in its client reference manifest's entryJSFiles: the page and the layouts, boundaries
 *    (error/not-found) and global error of its tree — the script tags the server renders for that page.
 * Polyfill files are left out: they load only in browsers without ES modules (nomodule).
 * Pages Router pages (pages/: the home page and the account forms, ADR 062) count their build-manifest.json files
 * (`/_app` and the page's own), or nothing when the page's source turns its runtime JavaScript off
 * (`unstable_runtimeJS: false`): Next then renders no script tag at all, which e2e/public-pages.spec.ts checks on
 * the served HTML.
 * A chunk shared by several entries of one page is counted once for that page. Chunks are gzipped here with
 * zlib's default level (what a server's gzip typically sends); sizes are in kB = 1000 bytes, as `next build` prints.
 *
 * Two figures per page (issue 27, ADR 053):
 *  - its goal: 100 kB for the home page, 110 kB for sign-in and sign-up, 150 kB for every other page;
 *  - its budget, what `--strict` enforces: the goal, or for a page still over it, a ceiling a little above what it
 *    measures now, so it can only get lighter. Lower a ceiling when a page gets lighter; never raise one to let a
 *    change through — make the change lighter, or record in docs/performance.md why the page must grow.
 * `--strict` (also `npm run size --strict`, which npm hands over as npm_config_strict) exits 1 when a page is over
 * its budget. npm test runs it on the e2e build (.next-e2e), so it costs no build of its own.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { gzipSync } from 'node:zlib';

/** Issue 27's goals, gzip kB: the pages a new visitor sees first are the lightest. */
export const GOALS_KB = { default: 150, '/': 100, '/sign-in': 110, '/sign-up': 110 };

/**
 * What `--strict` enforces: a page's goal, or a ceiling for a page still over it (measured + ~2 kB of headroom; the
 * figures and what stands between each page and its goal: docs/performance.md, First-load JavaScript).
 */
export const BUDGETS_KB = {
  '/conversations/[id]': 241,
  // Run over a list (ADR 059): the form reads CSV in the browser (papaparse) and checks rows with the server's schema (zod).
  // +2: its size refusals word bytes through the app's one formatter (lib/byte-size.ts), as every other page does.
  '/batches/new': 226,
  '/teams/[id]': 217,
  '/admin': 205,
  '/settings': 201,
  '/agents/[id]/edit': 200,
  '/agents/new': 200,
  '/batches/[id]': 189,
  // +1: the header's Inbox count for phones (34f08ad) and a sum whose only known part is $0 read as unknown (8b294e4).
  '/teams/[id]/runs': 189,
  '/inbox': 186,
  '/teams/new': 184,
  '/conversations': 183,
  // +1: the search box checks its text as the API does (lib/text-bounds) and says at the field what would be refused.
  '/agents': 182,
  // +1: the header's Skills link (ADR 061) put it a few bytes past 181.0.
  '/teams': 182,
  '/batches': 179,
  // Skills (ADR 061): list, write/edit form with counters, ZIP import; no zod on the page.
  '/skills': 182,
  // `/`, `/sign-in` and `/sign-up` meet their goals: Pages Router pages without runtime JavaScript (ADR 062).
  default: 150,
};

/** A page's figure in a table of them: its own entry, else the table's default (undefined when neither). */
const lookup = (table, route) => table[route] ?? table.default;

/** The routes of app pages (not API routes or Next's internal _global-error/_not-found), by app path. */
function pageRoutes(distDir) {
  const manifest = JSON.parse(readFileSync(path.join(distDir, 'app-path-routes-manifest.json'), 'utf8'));
  return Object.entries(manifest)
    .filter(([appPath, route]) => appPath.endsWith('/page') && !route.startsWith('/_'))
    .map(([appPath, route]) => ({ appPath, route }));
}

/** The client reference manifest is a script that assigns globalThis.__RSC_MANIFEST[appPath]; run it in a sandbox. */
function entryJsFiles(distDir, appPath) {
  const file = path.join(distDir, 'server', 'app', `${appPath}_client-reference-manifest.js`);
  if (!existsSync(file)) return []; // a page with no client component at all ships only the root files
  const sandbox = { globalThis: {} };
  sandbox.globalThis = sandbox;
  vm.runInNewContext(readFileSync(file, 'utf8'), sandbox, { filename: file });
  const entry = sandbox.__RSC_MANIFEST?.[appPath];
  if (!entry?.entryJSFiles) throw new Error(`${file} has no entryJSFiles for ${appPath} (a different Next output format?)`);
  return Object.values(entry.entryJSFiles).flat();
}

function rootMainFiles(distDir, appPath) {
  const file = path.join(distDir, 'server', 'app', appPath, 'build-manifest.json');
  const source = existsSync(file) ? file : path.join(distDir, 'build-manifest.json');
  return JSON.parse(readFileSync(source, 'utf8')).rootMainFiles ?? [];
}

/** Next's own Pages Router entries, and API routes: not pages a person visits. */
const PAGES_ROUTER_INTERNAL = /^\/(_app|_document|_error|404|500)$|^\/api(\/|$)/;

/** The routes of Pages Router pages, from the server's pages manifest (none when the app has no pages/ directory). */
function pagesRouterRoutes(distDir) {
  const file = path.join(distDir, 'server', 'pages-manifest.json');
  if (!existsSync(file)) return [];
  return Object.keys(JSON.parse(readFileSync(file, 'utf8'))).filter((route) => !PAGES_ROUTER_INTERNAL.test(route));
}

const RUNTIME_JS_OFF = /export\s+const\s+config\s*=\s*\{[^}]*\bunstable_runtimeJS\s*:\s*false\b/;

/** Whether a Pages Router page's source (pages/<route>.tsx, or index for /) turns its runtime JavaScript off. */
function runtimeJsOff(pagesDir, route) {
  const base = route === '/' ? 'index' : route.slice(1);
  for (const ext of ['.tsx', '.ts', '.jsx', '.js']) {
    const file = path.join(pagesDir, base + ext);
    if (existsSync(file)) return RUNTIME_JS_OFF.test(readFileSync(file, 'utf8'));
  }
  throw new Error(`No source for the Pages Router page ${route} in ${pagesDir}`);
}

/** A Pages Router page's first-load files: none with its runtime off, else its and /_app's build-manifest entries. */
function pagesRouterChunks(distDir, pagesDir, route) {
  if (runtimeJsOff(pagesDir, route)) return [];
  const pages = JSON.parse(readFileSync(path.join(distDir, 'build-manifest.json'), 'utf8')).pages ?? {};
  return [...(pages['/_app'] ?? []), ...(pages[route] ?? [])];
}

/**
 * Measure every page against its budget (what `over` says) and its goal; returns rows sorted largest first.
 * `gzipBytes` caches per chunk across pages.
 */
export function measurePages(distDir, { budgets = BUDGETS_KB, goals = GOALS_KB, pagesDir = path.join(process.cwd(), 'pages') } = {}) {
  if (!existsSync(path.join(distDir, 'app-path-routes-manifest.json'))) {
    const shown = path.relative(process.cwd(), distDir) || distDir;
    throw new Error(`No build in ${shown}: run \`NEXT_DIST_DIR=${shown} npx next build\` first`);
  }
  const cache = new Map();
  const gzipBytes = (chunk) => {
    if (!cache.has(chunk)) {
      const raw = readFileSync(path.join(distDir, chunk.replace(/^\/_next\//, '')));
      cache.set(chunk, { raw: raw.length, gzip: gzipSync(raw).length });
    }
    return cache.get(chunk);
  };
  const appPages = pageRoutes(distDir).map(({ appPath, route }) => ({
    route,
    files: [...rootMainFiles(distDir, appPath), ...entryJsFiles(distDir, appPath)],
  }));
  const routerPages = pagesRouterRoutes(distDir).map((route) => ({ route, files: pagesRouterChunks(distDir, pagesDir, route) }));
  const rows = [...appPages, ...routerPages].map(({ route, files }) => {
    const chunks = new Set(files.map((c) => c.replace(/^\/_next\//, '')));
    let raw = 0;
    let gzip = 0;
    for (const chunk of chunks) {
      const size = gzipBytes(chunk);
      raw += size.raw;
      gzip += size.gzip;
    }
    // A page with no ceiling of its own is held to its goal when it has one (a page that meets it stays there).
    const budgetKb = budgets[route] ?? goals[route] ?? budgets.default;
    const goalKb = lookup(goals, route);
    return {
      route,
      chunks: chunks.size,
      raw,
      gzip,
      budgetKb,
      goalKb,
      over: budgetKb !== undefined && gzip > budgetKb * 1000,
      overGoal: goalKb !== undefined && gzip > goalKb * 1000,
    };
  });
  return rows.sort((a, b) => b.gzip - a.gzip || a.route.localeCompare(b.route));
}

const kb = (bytes) => (bytes / 1000).toFixed(1);

export function formatTable(rows) {
  const width = Math.max(5, ...rows.map((r) => r.route.length));
  const lines = [`${'Route'.padEnd(width)}  chunks  raw kB  gzip kB  budget           goal`];
  for (const r of rows) {
    const budget = r.budgetKb === undefined ? '' : `${r.over ? 'OVER' : 'ok'} (≤ ${r.budgetKb})`;
    const goal = r.goalKb === undefined ? '' : `${r.overGoal ? `${kb(r.gzip - r.goalKb * 1000)} over` : 'met'} (≤ ${r.goalKb})`;
    lines.push(
      `${r.route.padEnd(width)}  ${String(r.chunks).padStart(6)}  ${kb(r.raw).padStart(6)}  ${kb(r.gzip).padStart(7)}  ${budget.padEnd(15)}  ${goal}`,
    );
  }
  return lines.join('\n');
}

/** `--strict` on the command line, or `npm run size --strict` (npm keeps the flag and sets npm_config_strict). */
export const strictRequested = (argv, env) => argv.includes('--strict') || env.npm_config_strict === 'true';

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const distDir = path.resolve(process.env.NEXT_DIST_DIR ?? '.next');
  try {
    const rows = measurePages(distDir);
    console.log(`First-load JavaScript per page (${path.relative(process.cwd(), distDir) || distDir}), gzip, largest first:\n`);
    console.log(formatTable(rows));
    const over = rows.filter((r) => r.over);
    if (strictRequested(process.argv, process.env) && over.length) {
      console.error(`\nOver budget: ${over.map((r) => r.route).join(', ')} (see docs/performance.md before raising a budget).`);
      process.exitCode = 1;
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  }
}
