import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { verifyPassword } from '@/server/auth/passwords';
import { userForToken } from '@/server/auth/tokens';
import { findUserByEmail } from '@/server/auth/users';
import { databaseEngine } from '@/server/db';

// A fresh DATA_DIR means a fresh database only on SQLite (DATA_DIR/ensemble.db); on Postgres DATABASE_URL names the
// database, shared with the rest of this file, so the tests that start from an empty data directory run on SQLite only.
const sqliteOnly = it.skipIf(databaseEngine() === 'postgres');

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

type Outcome = { code: number; stdout: string; stderr: string };

/**
 * `npm run user -- …` exactly as documented, against a chosen DATA_DIR. With `viaNpm: false` the same command
 * runs without npm in between (package.json's "user" script: tsx --conditions=react-server scripts/user.ts).
 */
async function userCli(args: string[], { dataDir = process.env.DATA_DIR!, viaNpm = false } = {}): Promise<Outcome> {
  const [file, argv] = viaNpm
    ? ['npm', ['run', '--silent', 'user', '--', ...args]]
    : [path.join(ROOT, 'node_modules/.bin/tsx'), ['--conditions=react-server', 'scripts/user.ts', ...args]];
  try {
    const { stdout, stderr } = await run(file, argv, { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir }, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

const email = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}@example.test`;

describe('npm run user -- create', { timeout: 120_000 }, () => {
  it('creates a user with a token and prints {userId, token}', async () => {
    const address = email('cli');
    const out = await userCli(['create', '--email', address.toUpperCase(), '--password', 'long enough', '--name', 'Cli User', '--token'], {
      viaNpm: true,
    });
    expect(out.code).toBe(0);
    const printed = JSON.parse(out.stdout) as { userId: string; token: string };
    expect(Object.keys(printed).sort()).toEqual(['token', 'userId']);
    expect(await findUserByEmail(address)).toMatchObject({ id: printed.userId, email: address, name: 'Cli User' });
    expect(await userForToken(printed.token)).toEqual({ id: printed.userId, email: address, name: 'Cli User' });
  });

  it('prints token null without --token, and refuses a duplicate email with exit 1', async () => {
    const address = email('dup');
    const first = await userCli(['create', '--email', address, '--password', 'long enough']);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ userId: (await findUserByEmail(address))!.id, token: null });

    const again = await userCli(['create', '--email', address, '--password', 'another one']);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain('An account with this email already exists');
  });

  it('explains bad input and unknown options with exit 1', async () => {
    const bad = await userCli(['create', '--email', 'not-an-email', '--password', 'short']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--email: Enter a valid email address');
    expect(bad.stderr).toContain('--password: Must be at least 8 characters');

    const unknownOption = await userCli(['create', '--email', email('y'), '--password', 'long enough', '--root']);
    expect(unknownOption.code).toBe(1);
    expect(unknownOption.stderr).toContain("Unknown option '--root'");
  });

  sqliteOnly('creates and migrates the database in an empty DATA_DIR', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-cli-'));
    try {
      const out = await userCli(['create', '--email', email('fresh'), '--password', 'long enough', '--token'], { dataDir: dir });
      expect(out.code).toBe(0);
      expect(JSON.parse(out.stdout).token).toMatch(/^ens_/);
      expect(fs.existsSync(path.join(dir, 'ensemble.db'))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The users of another data directory, read straight from its database file. */
function usersIn(dir: string): { email: string; role: string; password_hash: string }[] {
  const db = new Database(path.join(dir, 'ensemble.db'), { readonly: true });
  try {
    return db.prepare('SELECT email, role, password_hash FROM users ORDER BY created_at').all() as never;
  } finally {
    db.close();
  }
}

describe('npm run user -- create: roles', { timeout: 120_000 }, () => {
  it('--admin makes an admin; without it a later account is a member, whatever ALLOW_SIGNUP says', async () => {
    const admin = email('admin');
    const member = email('member');
    expect((await userCli(['create', '--email', admin, '--password', 'long enough', '--admin'])).code).toBe(0);
    const env = process.env.ALLOW_SIGNUP;
    process.env.ALLOW_SIGNUP = 'false';
    try {
      expect((await userCli(['create', '--email', member, '--password', 'long enough'])).code).toBe(0);
    } finally {
      process.env.ALLOW_SIGNUP = env;
    }
    expect((await findUserByEmail(admin))?.role).toBe('admin');
    expect((await findUserByEmail(member))?.role).toBe('member');
  });

  sqliteOnly('in an empty data directory the first account becomes the admin, the next a member', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-cli-'));
    try {
      const first = email('first');
      const second = email('second');
      expect((await userCli(['create', '--email', first, '--password', 'long enough'], { dataDir: dir })).code).toBe(0);
      expect((await userCli(['create', '--email', second, '--password', 'long enough'], { dataDir: dir })).code).toBe(0);
      expect(usersIn(dir).map((u) => [u.email, u.role])).toEqual([
        [first, 'admin'],
        [second, 'member'],
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the demo seed (npm run demo)', { timeout: 120_000 }, () => {
  sqliteOnly('on a fresh data directory makes the demo account the admin, with the printed password; a rerun keeps it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-demo-'));
    const seed = () =>
      run(path.join(ROOT, 'node_modules/.bin/tsx'), ['--conditions=react-server', 'scripts/seed-demo.ts'], {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: dir, DEMO_EMAIL: 'demo@ensemble.local', DEMO_PASSWORD: 'demo-password-1', ALLOW_SIGNUP: '' },
        timeout: 60_000,
      });
    try {
      const first = JSON.parse((await seed()).stdout) as { created: boolean; role: string };
      expect(first).toMatchObject({ created: true, role: 'admin' });
      const again = JSON.parse((await seed()).stdout) as { created: boolean; role: string };
      expect(again).toMatchObject({ created: false, role: 'admin' });
      const [demo, ...others] = usersIn(dir);
      expect(others).toEqual([]);
      expect(demo).toMatchObject({ email: 'demo@ensemble.local', role: 'admin' });
      expect(await verifyPassword('demo-password-1', demo!.password_hash)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
