import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { architecturePageProblems, firstStatement, motionProblems, rawHtmlProblems, serverOnlyProblems } from '../../scripts/house-rules.mjs';

/**
 * scripts/house-rules.mjs (npm test's first step, through scripts/checks.mjs) on a throw-away tree shaped like the
 * repository: the architecture page's line bound, `import 'server-only'` first in every server module, no raw HTML.
 */
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'house-rules-'));
  roots.push(root);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const lines = (n: number, line: string) => `${Array.from({ length: n }, () => line).join('\n')}\n`;
const GUARD = "import 'server-only';\n";

describe('the architecture page stays a map', () => {
  it.each([
    ['ASCII', '- server/db: the data layer'],
    ['CJK', '- 服务器：数据层'],
    ['emoji', '- 🗺️ the map'],
  ])('passes at 250 lines and fails at 251, whatever the text (%s)', (_, line) => {
    expect(architecturePageProblems(tree({ 'docs/architecture.md': lines(250, line) }))).toEqual([]);
    // What must not happen: a page past the bound that the check lets through.
    expect(architecturePageProblems(tree({ 'docs/architecture.md': lines(251, line) }))).toEqual([
      expect.stringMatching(/^docs\/architecture\.md: 251 lines, more than 250;/),
    ]);
  });

  it('counts a last line without a newline, and no phantom line after a final newline', () => {
    expect(architecturePageProblems(tree({ 'docs/architecture.md': `${lines(250, 'x')}y` }))).toHaveLength(1);
    expect(architecturePageProblems(tree({ 'docs/architecture.md': lines(250, 'x') }))).toEqual([]);
  });
});

describe("every server module starts with import 'server-only'", () => {
  it('passes a guard after comments, a hashbang or blank lines, in .ts and .tsx, in nested folders', () => {
    const root = tree({
      'server/a.ts': GUARD,
      'server/deep/b.tsx': `// why this module exists\n\n/**\n * more\n */\n${GUARD}export const b = 1;\n`,
      'server/c.ts': `#!/usr/bin/env node\n/* note */ import "server-only"\nexport {};\n`,
      'server/types.d.ts': 'declare const x: number;\n',
      'lib/free.ts': 'export const free = 1;\n',
    });
    expect(serverOnlyProblems(root, {})).toEqual([]);
  });

  it('reports a module without the guard, with it after another import, or with it only in a comment', () => {
    const root = tree({
      'server/missing.ts': 'export const x = 1;\n',
      'server/late.ts': `import { z } from 'zod';\n${GUARD}`,
      'server/nested/commented.ts': `// import 'server-only';\nexport const y = 2;\n`,
      'server/ok.ts': GUARD,
    });
    // What must not happen: a server module that a client component could pull into the browser unnoticed.
    expect(serverOnlyProblems(root, {}).map((p) => p.split(':')[0]).sort()).toEqual([
      'server/late.ts',
      'server/missing.ts',
      'server/nested/commented.ts',
    ]);
  });

  it('lets an exempt module through, and reports an exemption that is stale or names no file', () => {
    const root = tree({ 'server/plain-node.ts': 'export const x = 1;\n', 'server/guarded.ts': GUARD });
    expect(serverOnlyProblems(root, { 'server/plain-node.ts': 'a script loads it in plain Node' })).toEqual([]);
    expect(serverOnlyProblems(root, { 'server/plain-node.ts': 'why', 'server/guarded.ts': 'why', 'server/gone.ts': 'why' })).toEqual([
      expect.stringMatching(/^server\/guarded\.ts: starts with import 'server-only' yet is exempt/),
      expect.stringMatching(/^server\/gone\.ts: exempt from 'server-only' but no such file/),
    ]);
  });

  it('reads the first statement past comments only', () => {
    expect(firstStatement('/* a */\n// b\n  code();')).toBe('code();');
    expect(firstStatement('/* never closed')).toBe('');
  });
});

describe('no HTML rendered from text', () => {
  it('reports dangerouslySetInnerHTML in app, components and lib, with its line; elsewhere is not its business', () => {
    const root = tree({
      'components/teams/note.tsx': 'export const Note = ({ text }: { text: string }) => (\n  <p dangerouslySetInnerHTML={{ __html: text }} />\n);\n',
      'app/(app)/page.tsx': "const props = { dangerouslySetInnerHTML: { __html: '<b>x</b>' } };\n",
      'lib/render.ts': 'export const safe = (text: string) => text;\n',
      'test/probe.test.tsx': '<div dangerouslySetInnerHTML={{ __html: "" }} />\n',
    });
    // What must not happen: untrusted text turned into markup on a page.
    expect(rawHtmlProblems(root).sort()).toEqual([
      expect.stringMatching(/^app\/\(app\)\/page\.tsx:1: renders HTML/),
      expect.stringMatching(/^components\/teams\/note\.tsx:2: renders HTML/),
    ]);
    expect(rawHtmlProblems(tree({ 'components/plain.tsx': 'export const P = ({ text }: { text: string }) => <p>{text}</p>;\n' }))).toEqual([]);
  });
});

describe('motion only where the person allows it', () => {
  it('reports an animation class not behind motion-safe:, in app and components, with its line', () => {
    const root = tree({
      'components/ui/spinner.tsx': 'export const S = () => (\n  <span className="size-4 animate-spin rounded-full" />\n);\n',
      'app/(app)/page.tsx': "const dot = { polling: 'bg-amber-500 md:animate-pulse' };\n",
      'components/ok.tsx': "const a = 'motion-safe:animate-spin'; const b = `md:motion-safe:animate-pulse dark:bg-zinc-900`;\n",
      'lib/words.ts': "export const css = 'animate-spin';\n",
    });
    // What must not happen: a spinner that turns for a person who asked the system for reduced motion.
    expect(motionProblems(root).sort()).toEqual([
      expect.stringMatching(/^app\/\(app\)\/page\.tsx:1: md:animate-pulse moves .*; write md:motion-safe:animate-pulse$/),
      expect.stringMatching(/^components\/ui\/spinner\.tsx:2: animate-spin moves/),
    ]);
  });

  it('leaves animate-none and words that only contain the name alone, and reports a motion-reduce: animation', () => {
    const root = tree({
      'components/x.tsx': "const a = 'motion-reduce:animate-none animate-none'; const b = 'reanimate-later'; const c = 'no-animate-x';\n",
      'components/y.tsx': "const d = 'motion-reduce:animate-bounce';\n",
    });
    expect(motionProblems(root)).toEqual([expect.stringMatching(/^components\/y\.tsx:1: motion-reduce:animate-bounce moves/)]);
  });
});

describe('the command line', () => {
  it('exits 1 naming each problem, and 0 on a tree that keeps the rules', () => {
    const script = path.resolve(__dirname, '../../scripts/house-rules.mjs');
    const broken = tree({ 'docs/architecture.md': lines(251, 'x'), 'server/x.ts': 'export {};\n' });
    const failed = spawnSync(process.execPath, [script, broken], { encoding: 'utf8' });
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain('docs/architecture.md: 251 lines');
    expect(failed.stderr).toContain("server/x.ts: does not start with import 'server-only'");

    const kept = tree({
      'docs/architecture.md': lines(3, 'x'),
      'server/x.ts': GUARD,
      // The real exemptions name real files; a tree that holds them passes.
      'server/db/sqlite-schema.ts': '',
      'server/db/pg-schema.ts': '',
      'server/cluster/handover-log.ts': '',
    });
    const passed = spawnSync(process.execPath, [script, kept], { encoding: 'utf8' });
    expect(passed.stderr).toBe('');
    expect(passed.status).toBe(0);
  });
});
