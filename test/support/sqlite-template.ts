import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A SQLite app database migrated once for the whole run; each test file starts from a copy (setup.ts). */
    sqliteTemplate: string;
  }
}

/**
 * Vitest's global set-up for the SQLite suites: the app's migrations run once, here, on a template database, and
 * every test file's DATA_DIR starts with a copy of it (test/support/setup.ts) — a file copy instead of ~30 migrations
 * per test file. The app still runs its migrator on the copy at first open and finds nothing to do. Migrating an
 * empty database stays proven where it is the subject, in directories of their own: test/auth/cli.test.ts ("creates
 * and migrates the database in an empty DATA_DIR") and test/durability/files.test.ts (the modes a first open gives).
 */
export default function setup(project: TestProject): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-test-template-'));
  const file = path.join(dir, 'ensemble.db');
  // The pragmas of the app's writer (server/db/sqlite-engine.ts): WAL is recorded in the file itself.
  const sqlite = new Database(file);
  try {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = FULL');
    sqlite.pragma('foreign_keys = ON');
    migrate(drizzle(sqlite), { migrationsFolder: path.resolve(import.meta.dirname, '../../drizzle') });
    // Everything in the main file, no -wal beside it: a copy of the one file is the whole database.
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    sqlite.close();
  }
  project.provide('sqliteTemplate', file);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
