import { describe, expect, it } from 'vitest';
import { MAX_PROCESSES, parseOptions } from '@/scripts/crash/options';

describe('crash test options', () => {
  it('defaults to one process on SQLite', () => {
    expect(parseOptions([], {})).toEqual({ processes: 1, db: 'sqlite' });
  });

  it('reads the flags npm passes after --, in both spellings, the last one winning', () => {
    expect(parseOptions(['--processes', '3', '--db', 'postgres'], {})).toEqual({ processes: 3, db: 'postgres' });
    expect(parseOptions(['--processes=2', '--db=postgres', '--processes', '3'], {})).toEqual({ processes: 3, db: 'postgres' });
  });

  it('falls back to CRASH_PROCESSES and CRASH_DB, flags first', () => {
    expect(parseOptions([], { CRASH_PROCESSES: '2', CRASH_DB: 'postgres' })).toEqual({ processes: 2, db: 'postgres' });
    expect(parseOptions(['--processes', '3'], { CRASH_PROCESSES: '2', CRASH_DB: 'postgres' })).toEqual({ processes: 3, db: 'postgres' });
  });

  it('accepts 1 and the maximum of processes, and refuses 0 and one past it', () => {
    expect(parseOptions(['--processes', '1', '--db', 'postgres'], {}).processes).toBe(1);
    expect(parseOptions(['--processes', String(MAX_PROCESSES), '--db', 'postgres'], {}).processes).toBe(MAX_PROCESSES);
    expect(() => parseOptions(['--processes', '0', '--db', 'postgres'], {})).toThrow(/--processes must be/);
    expect(() => parseOptions(['--processes', String(MAX_PROCESSES + 1), '--db', 'postgres'], {})).toThrow(/--processes must be/);
    expect(() => parseOptions(['--processes', '1.5'], {})).toThrow(/--processes must be/);
  });

  it('refuses an unknown engine, a missing value, an unknown flag, and several processes on SQLite', () => {
    expect(() => parseOptions(['--db', 'mysql'], {})).toThrow(/--db must be sqlite or postgres/);
    expect(() => parseOptions(['--db'], {})).toThrow(/needs a value/);
    expect(() => parseOptions(['--kills', '3'], {})).toThrow(/unknown argument --kills/);
    expect(() => parseOptions(['--processes', '2'], {})).toThrow(/needs --db postgres/);
  });
});
