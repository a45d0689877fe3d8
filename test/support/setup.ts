import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

// Each test file gets its own data directory (vitest runs files in separate processes).
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-test-'));
process.env.DATA_DIR = dir;
process.env.MIGRATIONS_DIR = path.resolve(__dirname, '../../drizzle');
// Cheap scrypt for tests (2^10 instead of 2^15); the non-blocking test sets its own cost.
process.env.SCRYPT_LOG_N = '10';
process.env.AUTH_SECRET = 'test-secret-test-secret-test-secret';

afterAll(async () => {
  const { closeDb } = await import('@/server/db');
  closeDb();
  fs.rmSync(dir, { recursive: true, force: true });
});
