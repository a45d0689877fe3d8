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
 * A chunk shared by several entries of one page is counted once for that page. Chunks are gzipped here with
 * zlib's default level (what a server's gzip typically sends); sizes are in kB = 1000 bytes, as `next build` prints.
 *
 * `--strict` exits 1 when a page with a target is over it.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { gzipSync } from 'node:zlib';

/** Budgets from issue 11: the team workspace is the page people keep open. */
export const TARGETS_KB = { '/teams/[id]': 150 };

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

/** Measure every page; returns rows sorted largest first. `gzipBytes` caches per chunk across pages. */
export function measurePages(distDir, targetsKb = TARGETS_KB) {
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
  const rows = pageRoutes(distDir).map(({ appPath, route }) => {
    const chunks = new Set([...rootMainFiles(distDir, appPath), ...entryJsFiles(distDir, appPath)].map((c) => c.replace(/^\/_next\//, '')));
    let raw = 0;
    let gzip = 0;
    for (const chunk of chunks) {
      const size = gzipBytes(chunk);
      raw += size.raw;
      gzip += size.gzip;
    }
    const targetKb = targetsKb[route];
    return { route, chunks: chunks.size, raw, gzip, targetKb, over: targetKb !== undefined && gzip > targetKb * 1000 };
  });
  return rows.sort((a, b) => b.gzip - a.gzip || a.route.localeCompare(b.route));
}

const kb = (bytes) => (bytes / 1000).toFixed(1);

export function formatTable(rows) {
  const width = Math.max(5, ...rows.map((r) => r.route.length));
  const lines = [`${'Route'.padEnd(width)}  chunks  raw kB  gzip kB  target`];
  for (const r of rows) {
    const target = r.targetKb === undefined ? '' : `${r.over ? 'OVER' : 'ok'} (≤ ${r.targetKb} kB gzip)`;
    lines.push(`${r.route.padEnd(width)}  ${String(r.chunks).padStart(6)}  ${kb(r.raw).padStart(6)}  ${kb(r.gzip).padStart(7)}  ${target}`);
  }
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const distDir = path.resolve(process.env.NEXT_DIST_DIR ?? '.next');
  try {
    const rows = measurePages(distDir);
    console.log(`First-load JavaScript per page (${path.relative(process.cwd(), distDir) || distDir}), gzip, largest first:\n`);
    console.log(formatTable(rows));
    if (process.argv.includes('--strict') && rows.some((r) => r.over)) process.exitCode = 1;
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  }
}
