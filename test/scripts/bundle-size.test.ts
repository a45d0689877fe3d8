import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUDGETS_KB, formatTable, GOALS_KB, measurePages, strictRequested } from '../../scripts/bundle-size.mjs';

/**
 * `npm run size` over a miniature build output in the Turbopack shape it reads (the real shape was checked against
 * the script tags `next start` serves: the same chunks, minus the nomodule polyfill).
 */
let dist: string;

function write(rel: string, text: string) {
  const file = path.join(dist, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** Distinct, poorly compressible chunk bodies so sums can't match by accident. */
const body = (seed: number, length: number) =>
  Array.from({ length }, (_, i) => String.fromCharCode(33 + ((i * 7919 + seed * 104_729) % 89))).join('');
const gz = (text: string) => gzipSync(Buffer.from(text)).length;

const CHUNKS = {
  framework: body(1, 4000),
  runtime: body(2, 900),
  polyfill: body(3, 5000),
  layout: body(4, 2500),
  workspace: body(5, 3000),
  list: body(6, 700),
};

function page(appPath: string, entries: Record<string, string[]>) {
  write(
    `server/app${appPath}/build-manifest.json`,
    JSON.stringify({ polyfillFiles: ['static/chunks/polyfill.js'], rootMainFiles: ['static/chunks/framework.js', 'static/chunks/runtime.js'] }),
  );
  const manifest = { clientModules: {}, entryJSFiles: entries };
  write(
    `server/app${appPath}_client-reference-manifest.js`,
    `globalThis.__RSC_MANIFEST = globalThis.__RSC_MANIFEST || {};\nglobalThis.__RSC_MANIFEST[${JSON.stringify(appPath)}] = ${JSON.stringify(manifest)};\n`,
  );
}

beforeEach(() => {
  dist = mkdtempSync(path.join(os.tmpdir(), 'bundle-size-'));
  for (const [name, text] of Object.entries(CHUNKS)) write(`static/chunks/${name}.js`, text);
  write(
    'app-path-routes-manifest.json',
    JSON.stringify({
      '/(app)/teams/[id]/page': '/teams/[id]',
      '/(app)/teams/page': '/teams',
      '/_not-found/page': '/_not-found',
      '/api/health/route': '/api/health',
    }),
  );
  // The layout's chunk is listed again under the page: it must count once.
  page('/(app)/teams/[id]/page', {
    '[project]/app/layout': ['static/chunks/layout.js'],
    '[project]/app/(app)/teams/[id]/page': ['static/chunks/layout.js', 'static/chunks/workspace.js'],
  });
  page('/(app)/teams/page', { '[project]/app/layout': ['static/chunks/layout.js'], '[project]/app/(app)/teams/page': ['/_next/static/chunks/list.js'] });
});

afterEach(() => rmSync(dist, { recursive: true, force: true }));

describe('npm run size', () => {
  it('sums each page’s root files and entry chunks once each, gzip, largest first; no polyfill, API or internal route', () => {
    const rows = measurePages(dist, { budgets: {}, goals: {} });
    const root = gz(CHUNKS.framework) + gz(CHUNKS.runtime);
    expect(rows.map((r) => [r.route, r.chunks, r.gzip])).toEqual([
      ['/teams/[id]', 4, root + gz(CHUNKS.layout) + gz(CHUNKS.workspace)],
      ['/teams', 4, root + gz(CHUNKS.layout) + gz(CHUNKS.list)],
    ]);
    expect(rows[0]!.raw).toBe(CHUNKS.framework.length + CHUNKS.runtime.length + CHUNKS.layout.length + CHUNKS.workspace.length);
  });

  it('flags a page over its budget: at the budget is ok, one byte over is not', () => {
    const gzip = measurePages(dist, { budgets: {}, goals: {} }).find((r) => r.route === '/teams/[id]')!.gzip;
    const atLimit = measurePages(dist, { budgets: { '/teams/[id]': gzip / 1000 }, goals: {} });
    expect(atLimit.find((r) => r.route === '/teams/[id]')).toMatchObject({ over: false, budgetKb: gzip / 1000 });
    expect(atLimit.find((r) => r.route === '/teams')).toMatchObject({ over: false, budgetKb: undefined });
    const under = measurePages(dist, { budgets: { '/teams/[id]': (gzip - 1) / 1000 }, goals: {} });
    expect(under.find((r) => r.route === '/teams/[id]')!.over).toBe(true);
    expect(formatTable(under)).toMatch(/^\/teams\/\[id\] .* OVER \(≤ /m);
  });

  it('a page without its own entry gets the default budget and goal; missing a goal is reported, never enforced', () => {
    const rows = measurePages(dist, { budgets: { default: 1000 }, goals: { default: 0.001, '/teams': 1000 } });
    const workspace = rows.find((r) => r.route === '/teams/[id]')!;
    expect(workspace).toMatchObject({ budgetKb: 1000, over: false, goalKb: 0.001, overGoal: true });
    expect(rows.find((r) => r.route === '/teams')).toMatchObject({ goalKb: 1000, overGoal: false });
    expect(formatTable(rows)).toMatch(/^\/teams\/\[id\] .* ok \(≤ 1000\) +[0-9.]+ over \(≤ 0\.001\)$/m);
    expect(formatTable(rows)).toMatch(/^\/teams .* met \(≤ 1000\)$/m);
  });

  it('a new page gets the goal itself as its budget; a ceiling is only ever for a page over its goal', () => {
    expect(BUDGETS_KB.default).toBe(GOALS_KB.default);
    const goals: Record<string, number> = GOALS_KB;
    for (const [route, kb] of Object.entries(BUDGETS_KB).filter(([r]) => r !== 'default')) expect(kb, route).toBeGreaterThan(goals[route] ?? GOALS_KB.default);
  });

  it('strict from the command line or from `npm run size --strict` (npm_config_strict), not otherwise', () => {
    expect(strictRequested(['node', 'bundle-size.mjs', '--strict'], {})).toBe(true);
    expect(strictRequested(['node', 'bundle-size.mjs'], { npm_config_strict: 'true' })).toBe(true);
    expect(strictRequested(['node', 'bundle-size.mjs'], {})).toBe(false);
    expect(strictRequested(['node', 'bundle-size.mjs'], { npm_config_strict: '' })).toBe(false);
  });

  describe('Pages Router pages', () => {
    let pagesDir: string;
    beforeEach(() => {
      pagesDir = path.join(dist, 'src-pages');
      write('server/pages-manifest.json', JSON.stringify({ '/_app': 'a', '/_document': 'd', '/_error': 'e', '/404': 'n', '/': 'i', '/sign-in': 's', '/about': 'b', '/api/x': 'x' }));
      write('build-manifest.json', JSON.stringify({ rootMainFiles: [], pages: { '/_app': ['static/chunks/framework.js', 'static/chunks/runtime.js'], '/about': ['static/chunks/list.js'], '/sign-in': ['static/chunks/workspace.js'] } }));
      mkdirSync(pagesDir, { recursive: true });
      writeFileSync(path.join(pagesDir, 'index.tsx'), "export const config = { unstable_runtimeJS: false };\nexport default function P() {}\n");
      writeFileSync(path.join(pagesDir, 'sign-in.tsx'), "export const config = {\n  unstable_runtimeJS: false,\n};\n");
      // Says the words, but not as the page's config: its runtime is on.
      writeFileSync(path.join(pagesDir, 'about.tsx'), "// unstable_runtimeJS: false\nexport const config = { runtime: 'nodejs' };\n");
    });

    it('count nothing with the runtime off, else /_app’s and their own files; never Next’s own entries or API routes', () => {
      const rows = measurePages(dist, { budgets: {}, goals: {}, pagesDir });
      const byRoute = Object.fromEntries(rows.map((r) => [r.route, [r.chunks, r.gzip]]));
      expect(Object.keys(byRoute).sort()).toEqual(['/', '/about', '/sign-in', '/teams', '/teams/[id]']);
      expect(byRoute['/']).toEqual([0, 0]);
      expect(byRoute['/sign-in']).toEqual([0, 0]);
      expect(byRoute['/about']).toEqual([3, gz(CHUNKS.framework) + gz(CHUNKS.runtime) + gz(CHUNKS.list)]);
    });

    it('refuse a page whose source is missing rather than guess', () => {
      rmSync(path.join(pagesDir, 'about.tsx'));
      expect(() => measurePages(dist, { budgets: {}, goals: {}, pagesDir })).toThrow(/No source for the Pages Router page \/about/);
    });
  });

  it('refuses a directory without a build and names the command that makes one', () => {
    expect(() => measurePages(path.join(dist, 'missing'))).toThrow(/No build in .*missing: run `NEXT_DIST_DIR=.* npx next build` first/);
  });
});
