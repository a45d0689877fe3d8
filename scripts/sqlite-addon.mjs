#!/usr/bin/env node
// npm run build:sqlite-addon: builds better-sqlite3's native addon when this install has none (`npm ci
// --ignore-scripts`), and otherwise only checks that it loads (milliseconds). Where no prebuilt addon can be fetched,
// its install script compiles SQLite from source: a minute and a half of one core, which inside `npm ci` leaves the
// other core idle. `.ci/run` installs without scripts, and npm test's checks run this beside lint and typecheck,
// which never load the addon; the suites after them do (docs/performance.md, CI). At normal priority: below it, the
// compile waited behind the other checks and then ran alone for a minute with the other core idle.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Null when the addon loads and opens a database, else why not. */
function loadProblem() {
  try {
    const Database = require('better-sqlite3');
    new Database(':memory:').close();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message.split('\n')[0] : String(error);
  }
}

const problem = loadProblem();
if (problem === null) {
  console.log('better-sqlite3: its native addon loads.');
  process.exit(0);
}
console.log(`better-sqlite3: ${problem}; building its addon (npm rebuild better-sqlite3)…`);
const started = Date.now();
const result = spawnSync('npm', ['rebuild', 'better-sqlite3'], { stdio: 'inherit' });
const after = result.status === 0 ? loadProblem() : `npm rebuild exited with ${result.status ?? result.signal}`;
if (after !== null) {
  console.error(`better-sqlite3: the addon still does not load (${after}).`);
  process.exit(1);
}
console.log(`better-sqlite3: built in ${Math.round((Date.now() - started) / 1000)} s.`);
