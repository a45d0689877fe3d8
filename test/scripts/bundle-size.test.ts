import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatTable, measurePages } from '../../scripts/bundle-size.mjs';

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
    const rows = measurePages(dist, {});
    const root = gz(CHUNKS.framework) + gz(CHUNKS.runtime);
    expect(rows.map((r) => [r.route, r.chunks, r.gzip])).toEqual([
      ['/teams/[id]', 4, root + gz(CHUNKS.layout) + gz(CHUNKS.workspace)],
      ['/teams', 4, root + gz(CHUNKS.layout) + gz(CHUNKS.list)],
    ]);
    expect(rows[0]!.raw).toBe(CHUNKS.framework.length + CHUNKS.runtime.length + CHUNKS.layout.length + CHUNKS.workspace.length);
  });

  it('flags a page over its target: at the target is ok, one byte over is not', () => {
    const gzip = measurePages(dist, {}).find((r) => r.route === '/teams/[id]')!.gzip;
    const atLimit = measurePages(dist, { '/teams/[id]': gzip / 1000 });
    expect(atLimit.find((r) => r.route === '/teams/[id]')).toMatchObject({ over: false, targetKb: gzip / 1000 });
    expect(atLimit.find((r) => r.route === '/teams')).toMatchObject({ over: false, targetKb: undefined });
    const under = measurePages(dist, { '/teams/[id]': (gzip - 1) / 1000 });
    expect(under.find((r) => r.route === '/teams/[id]')!.over).toBe(true);
    expect(formatTable(under)).toMatch(/^\/teams\/\[id\] .* OVER \(≤ /m);
  });

  it('refuses a directory without a build and names the command that makes one', () => {
    expect(() => measurePages(path.join(dist, 'missing'))).toThrow(/No build in .*missing: run `NEXT_DIST_DIR=.* npx next build` first/);
  });
});
