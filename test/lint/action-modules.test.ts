import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Components may import from app/ only its server action modules (eslint.config.mjs, ADR 018). A client component
 * importing a 'use server' module gets references that POST to the action; importing any other module would put
 * its code, and the server code behind it, in the browser's bundle. So every file those patterns admit must be a
 * 'use server' module.
 */
const root = path.resolve(__dirname, '../..');
// The lint config is plain JavaScript without types: read the one export this test needs.
const { ACTION_MODULES } = (await import(path.join(root, 'eslint.config.mjs'))) as { ACTION_MODULES: string[] };

/** The three shapes of ACTION_MODULES, as a test over a path relative to app/. */
const isActionModule = (rel: string) => {
  const name = path.basename(rel);
  return name === 'actions.ts' || name.endsWith('-actions.ts') || path.dirname(rel) === 'actions';
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

/** The module's first statement, past comments and blank lines. */
const firstStatement = (source: string) =>
  source
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line !== '' && !line.startsWith('//'));

describe('server action modules under app/', () => {
  it('the lint exception admits the three shapes this test checks, and no more', () => {
    expect(ACTION_MODULES).toEqual(['**/app/**/actions.ts', '**/app/**/*-actions.ts', '**/app/actions/*.ts']);
  });

  const modules = filesUnder(path.join(root, 'app'))
    .map((file) => path.relative(path.join(root, 'app'), file))
    .filter(isActionModule);

  it('finds every section’s actions (the walk itself is not empty)', () => {
    for (const section of ['teams', 'agents', 'conversations', 'settings', 'admin']) {
      expect(modules).toContain(path.join('(app)', section, 'actions.ts'));
    }
    expect(modules).toContain(path.join('actions', 'auth.ts'));
  });

  it.each(modules)("app/%s is a 'use server' module", (rel) => {
    expect(firstStatement(readFileSync(path.join(root, 'app', rel), 'utf8'))).toMatch(/^['"]use server['"];?$/);
  });

  it('the check tells a module without the directive apart', () => {
    expect(firstStatement("/** doc */\n// note\nimport 'server-only';\n'use server';\n")).not.toMatch(/^['"]use server['"];?$/);
    expect(firstStatement("// note\n'use server';\nexport async function a() {}\n")).toMatch(/^['"]use server['"];?$/);
  });
});
