#!/usr/bin/env node
// Rules of docs/architecture.md that no linter knows, checked on the files themselves (npm test's first step,
// scripts/checks.mjs; test/lint/house-rules.test.ts runs them on fixtures):
// - docs/architecture.md stays a map: at most ARCHITECTURE_MAX_LINES lines; explanations belong in the ADRs.
// - every module under server/ starts with `import 'server-only'`, so a client component that reaches one fails the
//   build instead of shipping server code to the browser. The few that must also load in plain Node are listed in
//   SERVER_ONLY_EXEMPT, each with the reason; an entry that no longer needs its exemption is reported too.
// - nothing renders HTML from text: `dangerouslySetInnerHTML` appears nowhere in app/, components/ or lib/, so untrusted
//   text (a person's, a model's, a tool's) can only ever reach the page as text.
// - motion follows the person's setting: every Tailwind animation class in app/ and components/ is behind
//   `motion-safe:`, so a person who asked for reduced motion gets a page that stands still (and the browser tests,
//   which ask for it, draw no frames while they wait; docs/performance.md, CI).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const ARCHITECTURE_MAX_LINES = 250;

/** Files under server/ that run outside React's server graph too, where 'server-only' throws on import. */
export const SERVER_ONLY_EXEMPT = {
  'server/db/sqlite-schema.ts': 'drizzle-kit loads it in plain Node (npm run db:generate)',
  'server/db/pg-schema.ts': 'drizzle-kit loads it in plain Node (npm run db:generate:pg)',
  'server/cluster/handover-log.ts': "the crash test's log reader (scripts/crash/handover.ts, plain Node) parses its line",
};

const SOURCE = /\.(ts|tsx|mts|cts|js|mjs)$/;
const SERVER_ONLY = /^import\s+(['"])server-only\1\s*;?/;

function sourceFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return SOURCE.test(entry.name) && !/\.d\.ts$/.test(entry.name) ? [full] : [];
  });
}

/** The text from the first statement on: blank lines, comments and a hashbang skipped. */
export function firstStatement(text) {
  let rest = text.replace(/^#!.*\n/, '');
  for (;;) {
    const trimmed = rest.trimStart();
    if (trimmed.startsWith('//')) rest = trimmed.slice(trimmed.indexOf('\n') === -1 ? trimmed.length : trimmed.indexOf('\n') + 1);
    else if (trimmed.startsWith('/*')) {
      const end = trimmed.indexOf('*/');
      rest = end === -1 ? '' : trimmed.slice(end + 2);
    } else return trimmed;
  }
}

/** Problems with the server-only rule under `root`/server, as `path: why` lines (paths relative to root). */
export function serverOnlyProblems(root, exempt = SERVER_ONLY_EXEMPT) {
  const problems = [];
  const seen = new Set();
  for (const file of sourceFiles(path.join(root, 'server'))) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    seen.add(rel);
    const starts = SERVER_ONLY.test(firstStatement(fs.readFileSync(file, 'utf8')));
    if (rel in exempt) {
      if (starts) problems.push(`${rel}: starts with import 'server-only' yet is exempt; take it off SERVER_ONLY_EXEMPT`);
    } else if (!starts) {
      problems.push(`${rel}: does not start with import 'server-only' (or add it to SERVER_ONLY_EXEMPT in scripts/house-rules.mjs with the reason it must load in plain Node)`);
    }
  }
  for (const rel of Object.keys(exempt)) if (!seen.has(rel)) problems.push(`${rel}: exempt from 'server-only' but no such file; take it off SERVER_ONLY_EXEMPT`);
  return problems;
}

/** Every use of `dangerouslySetInnerHTML` under `root`'s app/, components/ and lib/, as `path:line` problems. */
export function rawHtmlProblems(root) {
  return ['app', 'components', 'lib'].flatMap((dir) =>
    sourceFiles(path.join(root, dir)).flatMap((file) => {
      const rel = path.relative(root, file).split(path.sep).join('/');
      return fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (line.includes('dangerouslySetInnerHTML') ? [`${rel}:${i + 1}: renders HTML (dangerouslySetInnerHTML); render text instead`] : []));
    }),
  );
}

/** A Tailwind `animate-*` class token and the variants before it (`md:motion-safe:animate-spin`). */
const ANIMATION_CLASS = /(?<![\w:/-])((?:[\w-]+:)*)animate-[\w-]+/g;

/** Every `animate-*` class under `root`'s app/ and components/ not behind `motion-safe:`, as `path:line` problems. */
export function motionProblems(root) {
  return ['app', 'components'].flatMap((dir) =>
    sourceFiles(path.join(root, dir)).flatMap((file) => {
      const rel = path.relative(root, file).split(path.sep).join('/');
      return fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          [...line.matchAll(ANIMATION_CLASS)]
            .filter((match) => !match[1].split(':').includes('motion-safe') && !match[0].endsWith(':animate-none') && match[0] !== 'animate-none')
            .map((match) => {
              const suggestion = `${match[1]}motion-safe:${match[0].slice(match[1].length)}`;
              return `${rel}:${i + 1}: ${match[0]} moves for a person who asked for reduced motion; write ${suggestion}`;
            }),
        );
    }),
  );
}

/** Problems with the architecture page's length under `root`. */
export function architecturePageProblems(root, max = ARCHITECTURE_MAX_LINES) {
  const file = path.join(root, 'docs/architecture.md');
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.length > max
    ? [`docs/architecture.md: ${lines.length} lines, more than ${max}; move the explanation into its ADR (docs/decisions) and link it`]
    : [];
}

export function houseRuleProblems(root) {
  return [...architecturePageProblems(root), ...serverOnlyProblems(root), ...rawHtmlProblems(root), ...motionProblems(root)];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '..'));
  const problems = houseRuleProblems(root);
  if (problems.length > 0) {
    process.stderr.write(`House rules broken (scripts/house-rules.mjs):\n${problems.map((p) => `  ${p}\n`).join('')}`);
    process.exit(1);
  }
  process.stdout.write('House rules kept: docs/architecture.md is a map, every server module is server-only, no HTML from text, motion only where the person allows it.\n');
}
