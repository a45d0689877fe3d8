import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * scripts/import-cycles.mjs, npm run lint's cycle check (ADR 049), on the real files of
 * test/lint/fixtures/import-cycle (the repository's own run leaves that folder out).
 */
const root = path.resolve(__dirname, '../..');
const check = (...globs: string[]) => spawnSync(process.execPath, ['scripts/import-cycles.mjs', ...globs], { cwd: root, encoding: 'utf8' });
const fixture = (name: string) => `test/lint/fixtures/import-cycle/${name}`;

describe('no import cycles (ADR 049)', () => {
  it('fails naming every file of a cycle, through re-exports and import() too', () => {
    const result = check(fixture('*.ts'));
    expect(result.status).toBe(1);
    const cycles = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('  '))
      .map((line) => new Set(line.trim().split(' → ').map((file) => path.basename(file))));
    // What must not happen: a cycle lint lets through.
    expect(cycles).toEqual([new Set(['value-a.ts', 'value-b.ts']), new Set(['chain-a.ts', 'chain-b.ts', 'chain-c.ts'])]);
  }, 60_000);

  it('passes a type-only cycle: it vanishes at run time', () => {
    // What must not happen: a type import counted as a run-time edge.
    const typeOnly = check(fixture('type-*.ts'));
    expect(typeOnly.stderr).toBe('');
    expect(typeOnly.status).toBe(0);
    expect(typeOnly.stdout).toMatch(/^No import cycles in 2 files\./);
  }, 60_000);
});
