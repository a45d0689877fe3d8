import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * File names are kebab-case everywhere (docs/architecture.md, "File names"): `job-card.tsx`, never `JobCard.tsx`, so
 * a name is spelled one way in imports, on case-insensitive disks and in the URL of a route folder. Folders may also
 * use Next's routing forms: `[id]`, `[...nextauth]`, `(app)`. Exports keep their own case (components PascalCase).
 */
const root = path.resolve(__dirname, '../..');
const SOURCE_DIRS = ['app', 'components', 'lib', 'server', 'scripts', 'e2e', 'test'];
/** Conventional upper-case documentation names. */
const ALLOWED_FILES = new Set(['README.md']);

const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function isKebabFileName(name: string): boolean {
  if (ALLOWED_FILES.has(name)) return true;
  // "page.tsx", "draft-key.test.ts", "next-env.d.ts": every dot-separated part is kebab.
  return name.split('.').every((part) => KEBAB.test(part));
}

export function isKebabFolderName(name: string): boolean {
  const routing = /^\((.+)\)$|^\[\[\.\.\.(.+)\]\]$|^\[(?:\.\.\.)?([^[\]]+)\]$/.exec(name);
  const inner = routing ? (routing[1] ?? routing[2] ?? routing[3])! : name;
  // Route params may be camelCase ([jobId]): they are the handler's variable names, not file names.
  return routing?.[2] || routing?.[3] ? /^[A-Za-z][A-Za-z0-9]*$/.test(inner) : KEBAB.test(inner);
}

function offenders(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const rel = path.relative(root, path.join(dir, entry.name));
    if (entry.isDirectory()) {
      if (!isKebabFolderName(entry.name)) found.push(`${rel}/`);
      found.push(...offenders(path.join(dir, entry.name)));
    } else if (!isKebabFileName(entry.name)) {
      found.push(rel);
    }
  }
  return found;
}

describe('file names are kebab-case', () => {
  it.each(SOURCE_DIRS)('%s/ has no other file or folder name', (dir) => {
    expect(offenders(path.join(root, dir))).toEqual([]);
  });

  it('accepts kebab-case files and Next routing folders', () => {
    for (const name of ['job-card.tsx', 'page.tsx', 'not-found.tsx', 'draft-key.test.ts', 'next-env.d.ts', 'v1.ts', 'README.md']) {
      expect(isKebabFileName(name), name).toBe(true);
    }
    for (const name of ['teams', 'state', '(app)', '[id]', '[jobId]', '[...nextauth]', '[[...slug]]', 'teams-ui']) {
      expect(isKebabFolderName(name), name).toBe(true);
    }
  });

  it('rejects PascalCase, camelCase, snake_case and spaces', () => {
    for (const name of ['JobCard.tsx', 'jobCard.ts', 'job_card.ts', 'job card.ts', 'Job-card.tsx', 'job--card.ts', 'job-card-.ts', 'Readme.md']) {
      expect(isKebabFileName(name), name).toBe(false);
    }
    for (const name of ['Teams', 'teamsUi', 'teams_ui', '(App)', '[job_id]', '[]']) {
      expect(isKebabFolderName(name), name).toBe(false);
    }
  });
});
