import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeCheckpointer, getCheckpointer } from '@/server/agents/checkpointer';
import { AuthSecretError, authSecret, loadOrCreateSecret, publishSecret } from '@/server/auth/secret';
import { closeDb, databaseEngine, getDb, writeTx } from '@/server/db';
import { dataDir } from '@/server/db/paths';

const root = path.resolve(__dirname, '../..');
const children = new Set<ChildProcess>();
const originalDataDir = process.env.DATA_DIR!;
const originalSecret = process.env.AUTH_SECRET;

// On Postgres the app's tables are not in DATA_DIR: its SQLite files there are the checkpoints and the lock.
const onPostgres = databaseEngine() === 'postgres';
const mode = (file: string) => fs.statSync(file).mode & 0o777;
const freshDir = (label: string) => fs.mkdtempSync(path.join(originalDataDir, `${label}-`));
/** Every regular file directly in dir with its mode, e.g. { 'ensemble.db': 0o600 }. */
const fileModes = (dir: string) =>
  Object.fromEntries(
    fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => [entry.name, mode(path.join(dir, entry.name))]),
  );

/** Spawn a TypeScript fixture with the project's loader; `umask 000` so any mode we get is the one we set. */
function spawnFixture(fixture: string, env: NodeJS.ProcessEnv) {
  const command = `umask 000 && exec "${process.execPath}" --conditions=react-server --import tsx "${path.join(__dirname, 'fixtures', fixture)}"`;
  const child = spawn('sh', ['-c', command], { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      children.delete(child);
      resolve(code);
    }),
  );
  /** Resolve once the output contains `text`; reject if the process exits first or takes too long. */
  const printed = (text: string, timeoutMs = 90_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "${text}" after ${timeoutMs} ms:\n${output}`)), timeoutMs);
      const check = () => {
        if (!output.includes(text)) return;
        clearTimeout(timer);
        resolve();
      };
      child.stdout!.on('data', check);
      check();
      void exited.then(() => {
        clearTimeout(timer);
        if (output.includes(text)) resolve();
        else reject(new Error(`exited before "${text}":\n${output}`));
      });
    });
  return { child, output: () => output, exited, printed };
}

afterEach(async () => {
  for (const child of children) {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
  }
  closeCheckpointer();
  await closeDb();
  process.env.DATA_DIR = originalDataDir;
  process.env.AUTH_SECRET = originalSecret;
  vi.restoreAllMocks();
});

describe('power loss', () => {
  it('commits with synchronous=FULL on the app and checkpoint databases (fsync before a write is acknowledged)', async () => {
    process.env.DATA_DIR = freshDir('sync');
    // 2 = FULL (1 = NORMAL, which in WAL mode can lose the last commits to an OS crash).
    // The writer connection (writeTx's): the read-only connection never commits anything.
    if (!onPostgres) expect(await writeTx((tx) => tx.$client.pragma('synchronous', { simple: true }))).toBe(2);
    // On Postgres the checkpoints are in the app's database too (ADR 033 §7): no checkpoints.db.
    const saver = getCheckpointer();
    if (saver.engine === 'sqlite') expect(saver.db.pragma('synchronous', { simple: true })).toBe(2);
    else expect(fs.existsSync(path.join(process.env.DATA_DIR!, 'checkpoints.db'))).toBe(false);
  });
});

describe('data directory modes', () => {
  it('creates DATA_DIR 0700 and its databases, journals and secret 0600 whatever the umask', async () => {
    const dir = path.join(freshDir('modes'), 'nested', 'data');
    process.env.DATA_DIR = dir;
    delete process.env.AUTH_SECRET;
    const previous = process.umask(0);
    try {
      getDb();
      getCheckpointer();
      // On Postgres AUTH_SECRET is required (the processes share it), so none is generated: start-up makes the
      // directory itself (server/startup.ts).
      if (!onPostgres) authSecret();
      else dataDir();
    } finally {
      process.umask(previous);
    }
    expect(mode(dir)).toBe(0o700);
    const modes = fileModes(dir);
    // The write-ahead logs exist (SQLite made them), so their modes were really checked.
    // On Postgres neither the app's tables nor the checkpoints are files here (ADR 033 §7).
    const appFiles = onPostgres ? [] : ['ensemble.db', 'ensemble.db-wal', 'ensemble.db-shm', 'checkpoints.db', 'auth-secret'];
    expect(Object.keys(modes)).toEqual(expect.arrayContaining(appFiles));
    if (onPostgres) expect(Object.keys(modes).filter((name) => name.startsWith('checkpoints.db'))).toEqual([]);
    for (const [name, fileMode] of Object.entries(modes)) expect(fileMode, name).toBe(0o600);
  });

  it('tightens an existing, loose data directory at start-up (server process, umask 000)', async () => {
    const dir = freshDir('loose');
    fs.chmodSync(dir, 0o755);
    fs.writeFileSync(path.join(dir, 'auth-secret'), 'x'.repeat(43));
    fs.chmodSync(path.join(dir, 'auth-secret'), 0o644);
    fs.writeFileSync(path.join(dir, 'leftover.txt'), 'anything');
    fs.chmodSync(path.join(dir, 'leftover.txt'), 0o666);

    const server = spawnFixture('server-process.ts', { ...process.env, DATA_DIR: dir });
    await server.printed('ready\n');
    expect(mode(dir)).toBe(0o700);
    const modes = fileModes(dir);
    // On Postgres no SQLite file at all: the data, the checkpoints and the processes' coordination live there.
    const appFiles = onPostgres ? [] : ['ensemble.db', 'ensemble.db-wal', 'ensemble.db-shm', 'checkpoints.db', 'server.lock.db'];
    expect(Object.keys(modes)).toEqual(expect.arrayContaining([...appFiles, 'auth-secret', 'leftover.txt']));
    if (onPostgres) expect(Object.keys(modes).filter((name) => name.endsWith('.db'))).toEqual([]);
    for (const [name, fileMode] of Object.entries(modes)) expect(fileMode, name).toBe(0o600);
  }, 120_000);
});

describe('the generated auth secret', () => {
  it('is the same for processes that generate it at the same moment, and leaves no temporary file', async () => {
    const dir = freshDir('race');
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dir };
    delete env.AUTH_SECRET;
    // A generated secret is the embedded database's (with DATABASE_URL the processes must be given one).
    delete env.DATABASE_URL;
    const processes = Array.from({ length: 4 }, () => spawnFixture('auth-secret.ts', env));
    await Promise.all(processes.map((p) => p.printed('waiting\n')));
    // Release them together: each one finds no secret and writes one.
    for (const p of processes) p.child.stdin!.write('go\n');
    await Promise.all(processes.map((p) => p.printed('secret:')));
    expect(await Promise.all(processes.map((p) => p.exited))).toEqual([0, 0, 0, 0]);

    const secrets = processes.map((p) => /secret:(\S+)\n/.exec(p.output())?.[1]);
    const onDisk = fs.readFileSync(path.join(dir, 'auth-secret'), 'utf8');
    expect(onDisk).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(secrets).toEqual([onDisk, onDisk, onDisk, onDisk]);
    expect(mode(path.join(dir, 'auth-secret'))).toBe(0o600);
    expect(fs.readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  }, 120_000);

  it('keeps the secret another process published first (the lost race) and removes its own attempt', async () => {
    const dir = freshDir('lost');
    const file = path.join(dir, 'auth-secret');
    const theirs = 'T'.repeat(43);
    fs.writeFileSync(file, theirs);
    expect(publishSecret(file)).toBe(theirs);
    expect(fs.readFileSync(file, 'utf8')).toBe(theirs);
    expect(fs.readdirSync(dir)).toEqual(['auth-secret']);
  });

  it('replaces an empty secret file left by a crash, with a warning', async () => {
    const dir = freshDir('empty');
    const file = path.join(dir, 'auth-secret');
    fs.writeFileSync(file, '\n');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const secret = loadOrCreateSecret(file);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fs.readFileSync(file, 'utf8')).toBe(secret);
    expect(mode(file)).toBe(0o600);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining(`${file} is empty`));
    expect(fs.readdirSync(dir)).toEqual(['auth-secret']);
  });

  it('refuses a secret shorter than 32 characters with a message that says what to do, and leaves it alone', async () => {
    const dir = freshDir('short');
    const file = path.join(dir, 'auth-secret');
    fs.writeFileSync(file, 's'.repeat(31));
    expect(() => loadOrCreateSecret(file)).toThrow(AuthSecretError);
    expect(() => loadOrCreateSecret(file)).toThrow(/too short \(31 characters.*Delete the file.*or set AUTH_SECRET/);
    expect(fs.readFileSync(file, 'utf8')).toBe('s'.repeat(31));
    // At the limit it is accepted as it is.
    fs.writeFileSync(file, 's'.repeat(32));
    expect(loadOrCreateSecret(file)).toBe('s'.repeat(32));
  });

  it('keeps an existing secret across calls, and AUTH_SECRET wins over the file', async () => {
    const dir = freshDir('keep');
    process.env.DATA_DIR = dir;
    delete process.env.AUTH_SECRET;
    // A generated secret is the embedded database's (with DATABASE_URL AUTH_SECRET is required).
    const databaseUrl = process.env.DATABASE_URL;
    delete process.env.DATABASE_URL;
    try {
      const first = authSecret();
      expect(authSecret()).toBe(first);
      expect(loadOrCreateSecret(path.join(dir, 'auth-secret'))).toBe(first);
      process.env.AUTH_SECRET = 'from-the-environment-from-the-environment';
      expect(authSecret()).toBe('from-the-environment-from-the-environment');
    } finally {
      if (databaseUrl !== undefined) process.env.DATABASE_URL = databaseUrl;
    }
  });
});
