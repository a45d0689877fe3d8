#!/usr/bin/env node
// npm test's first step: the house rules no linter knows (scripts/house-rules.mjs: the architecture page's length,
// 'server-only' first in every server module; milliseconds), then `npm run lint`'s two halves (ESLint, the import
// cycle check) and `npm run typecheck` side by side (CI has two cores), each one's output printed whole when it ends
// so they never interleave. Fails when any of them fails; they all still run after a broken house rule, so one run
// shows everything.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { houseRuleProblems } from './house-rules.mjs';

function run(script) {
  const started = Date.now();
  return new Promise((resolve) => {
    let output = '';
    let done = false;
    const finish = (code) => {
      if (done) return;
      done = true;
      const seconds = Math.round((Date.now() - started) / 1000);
      process.stdout.write(`--- npm run ${script}: ${code === 0 ? 'passed' : `failed (exit ${code})`} in ${seconds} s\n${output}`);
      resolve(code);
    };
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => {
      output += `${error.message}\n`;
      finish(1);
    });
    child.on('close', (code, signal) => finish(code ?? (signal ? 1 : 0)));
  });
}

const problems = houseRuleProblems(path.join(import.meta.dirname, '..'));
process.stdout.write(
  problems.length === 0
    ? '--- house rules: kept\n'
    : `--- house rules: broken (scripts/house-rules.mjs)\n${problems.map((p) => `  ${p}\n`).join('')}`,
);
// npm scripts named on the command line run beside them: npm test builds the e2e app here, in the time lint
// leaves a core idle after typecheck ends, and better-sqlite3's addon when the install skipped its scripts (CI's
// does; scripts/sqlite-addon.mjs) (docs/performance.md, CI). ESLint is the longest of them, so the cycle
// check (~25 CPU seconds) runs beside it here, not after it as `npm run lint` runs it. ESLint and tsc run in a node
// with a 64 MB young generation (package.json): with V8's default, a quarter of ESLint's CPU went to collecting the
// type checker's short-lived objects (−22 % for ESLint, −16 % for tsc; docs/performance.md, CI).
const codes = await Promise.all(['lint:eslint', 'lint:cycles', 'typecheck', ...process.argv.slice(2)].map(run));
process.exit(problems.length === 0 && codes.every((code) => code === 0) ? 0 : 1);
