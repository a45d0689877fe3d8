import 'server-only';
import fs from 'node:fs';
import path from 'node:path';

/** Where the database, checkpoints and lock live. DATA_DIR overrides ./data. */
export function dataDir(): string {
  const dir = path.resolve(process.env.DATA_DIR || path.join(process.cwd(), 'data'));
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

export const appDbPath = () => path.join(dataDir(), 'ensemble.db');
export const checkpointDbPath = () => path.join(dataDir(), 'checkpoints.db');
export const migrationsDir = () => path.resolve(process.env.MIGRATIONS_DIR || path.join(process.cwd(), 'drizzle'));
