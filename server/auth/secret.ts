import 'server-only';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { dataDir, PRIVATE_FILE_MODE, restrict } from '@/server/db/paths';
import { env, MIN_SECRET_CHARS } from '@/server/env';

export { MIN_SECRET_CHARS };

export class AuthSecretError extends Error {
  constructor(readonly file: string, length: number) {
    super(
      `The session secret in ${file} is too short (${length} characters, at least ${MIN_SECRET_CHARS} needed). ` +
        'Delete the file to have a new one generated (everyone is signed out), or set AUTH_SECRET.',
    );
    this.name = 'AuthSecretError';
  }
}

// Read once per process and file: every request verifies its session with it.
const g = globalThis as unknown as { __ensembleAuthSecret?: { file: string; secret: string } };

/** Refused at start-up: several processes on one database, each with a secret of its own. */
export class SharedSecretMissingError extends Error {
  constructor() {
    super(
      'DATABASE_URL is set but AUTH_SECRET is not: the app processes sharing that database must sign sessions with one ' +
        `secret. Set AUTH_SECRET (at least ${MIN_SECRET_CHARS} characters, e.g. \`openssl rand -base64 32\`) to the same value for every process.`,
    );
    this.name = 'SharedSecretMissingError';
  }
}

/**
 * Why start-up must refuse, if it must: with DATABASE_URL several processes may serve one set of accounts (ADR 033),
 * and a secret generated per process (in each one's data directory) would make a session signed by one invalid at
 * the others — sign-ins that work on one request and fail on the next, depending on where the balancer sends it.
 */
export function sharedSecretProblem(): SharedSecretMissingError | undefined {
  return env.databaseUrl && !env.authSecret ? new SharedSecretMissingError() : undefined;
}

/**
 * AUTH_SECRET signs session cookies. When unset, a random secret is generated once and kept in the data
 * directory, so a self-hosted install works without configuration and sessions survive restarts. Not with
 * DATABASE_URL: the processes on it must share one (sharedSecretProblem).
 */
export function authSecret(): string {
  const configured = env.authSecret;
  if (configured) return configured;
  const problem = sharedSecretProblem();
  if (problem) throw problem;
  const file = path.join(dataDir(), 'auth-secret');
  if (g.__ensembleAuthSecret?.file !== file) g.__ensembleAuthSecret = { file, secret: loadOrCreateSecret(file) };
  return g.__ensembleAuthSecret.secret;
}

/**
 * The secret kept in `file`, generated when there is none. A new secret is published complete or not at all
 * (see publishSecret), so a reader never sees a half-written one. An empty file can only be what an older
 * version left when it crashed mid-write; nothing was ever signed with it, so it is replaced with a warning.
 * A non-empty secret that is too short is refused rather than silently replaced: replacing it would sign
 * everyone out, and someone may have put it there on purpose.
 */
export function loadOrCreateSecret(file: string): string {
  const existing = readIfExists(file);
  if (existing === undefined) return publishSecret(file);
  const secret = existing.trim();
  if (secret === '') {
    console.warn(`[auth] ${file} is empty (left by a crash while it was written): generating a new session secret`);
    return replaceSecret(file);
  }
  if (secret.length < MIN_SECRET_CHARS) throw new AuthSecretError(file, secret.length);
  restrict(file, PRIVATE_FILE_MODE);
  return secret;
}

/**
 * Write a new secret to a temporary file in the same directory (fsync'd, owner-only), then hard-link it into
 * place: link() never replaces an existing file, so when two processes start at once exactly one secret wins,
 * and the loser reads the winner's instead of keeping its own.
 */
export function publishSecret(file: string): string {
  const tmp = writeTemp(file);
  let won = false;
  try {
    fs.linkSync(tmp, file);
    won = true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') {
      // A filesystem without hard links: fall back to rename (atomic, but a simultaneous start could replace ours).
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw err;
      if (readIfExists(file) === undefined) fs.renameSync(tmp, file);
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  syncDir(path.dirname(file));
  if (won) return fs.readFileSync(file, 'utf8').trim();
  return loadOrCreateSecret(file);
}

/** Atomically replace an unusable (empty) secret file, then use what the file holds after the rename. Only the
 * leftover of an older version's crash takes this path; two processes repairing it in the same instant could
 * each keep their own, which the service lock (one server per data directory) makes moot for the server. */
function replaceSecret(file: string): string {
  fs.renameSync(writeTemp(file), file);
  syncDir(path.dirname(file));
  return loadOrCreateSecret(file);
}

function writeTemp(file: string): string {
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
  const fd = fs.openSync(tmp, 'wx', PRIVATE_FILE_MODE);
  try {
    fs.fchmodSync(fd, PRIVATE_FILE_MODE); // the umask may have taken bits off the mode given to open
    fs.writeSync(fd, crypto.randomBytes(32).toString('base64url'));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return tmp;
}

function readIfExists(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Make the new directory entry itself durable (a crash right after must not lose the name). */
function syncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
