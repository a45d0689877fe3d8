#!/usr/bin/env node
// npm run lint's second step: no import cycles (ADR 049). `node scripts/import-cycles.mjs [glob…]`, default: every
// source file of the repository. Each file is transpiled first, as the compiler does, so an `import type` (which
// vanishes at run time) is no edge, while re-exports and import() are. Exits 1 naming each cycle.
//
// A dependency-graph tool, not ESLint's import/no-cycle: that rule walked the graph again from every file and took
// three quarters of lint's time (over 2 minutes of a 5-minute lint in CI); this reads each file once.
import { parseCircular, parseDependencyTree } from 'dpdm';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = ['{app,components,lib,server,scripts,test,test-pg,test-providers,e2e}/**/*.{ts,tsx,mts,mjs}', '*.{ts,mts,mjs}'];
// Cycles on purpose (test/lint/import-cycles.test.ts reads them), and code that is not the project's.
const EXCLUDE = /node_modules|[\\/]\.next|[\\/]test[\\/]lint[\\/]fixtures[\\/]/;

const globs = process.argv.slice(2);
const tree = await parseDependencyTree(globs.length > 0 ? globs : SOURCES, {
  cwd: root,
  context: root,
  tsconfig: path.join(root, 'tsconfig.json'),
  transform: true,
  skipDynamicImports: false,
  // Explicit globs (the test's fixtures) are checked even where the repository's own run leaves them out.
  exclude: globs.length > 0 ? /node_modules/ : EXCLUDE,
});
const cycles = parseCircular(tree);
if (cycles.length > 0) {
  console.error(`Import cycles (${cycles.length}): each makes its modules load and change together (docs/decisions/049-run-core-seams.md).`);
  for (const cycle of cycles) console.error(`  ${[...cycle, cycle[0]].join(' → ')}`);
  process.exit(1);
}
console.log(`No import cycles in ${Object.keys(tree).filter((file) => tree[file] !== null).length} files.`);
