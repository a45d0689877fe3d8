/**
 * Create a user from the command line (the operator's tool: it works whether or not sign-up is open):
 *
 *   npm run user -- create --email E --password P [--name N] [--token] [--admin]
 *
 * The instance's first account becomes its admin; --admin makes any account an admin.
 * Prints {"userId": "...", "token": "ens_..." | null} and exits 0; prints an error and exits 1 on bad input or an
 * email that is taken. Uses DATA_DIR (default ./data) and applies migrations first. Run with
 * `tsx --conditions=react-server` so the server modules' 'server-only' guard resolves to its empty build.
 */
import { parseArgs } from 'node:util';
import { signUpSchema } from '@/lib/schemas/auth';
import { createApiToken } from '@/server/auth/tokens';
import { createUser } from '@/server/auth/users';
import { closeDb, openDatabase } from '@/server/db';
import { AppError } from '@/server/http/errors';
import { zodFields } from '@/server/http/validation';

const USAGE = 'Usage: npm run user -- create --email E --password P [--name N] [--token] [--admin]';

class UsageError extends Error {}

async function main(argv: string[]): Promise<{ userId: string; token: string | null }> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        email: { type: 'string' },
        password: { type: 'string' },
        name: { type: 'string' },
        token: { type: 'boolean', default: false },
        admin: { type: 'boolean', default: false },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const [command, ...rest] = parsed.positionals;
  if (command !== 'create' || rest.length > 0) throw new UsageError(command ? `Unknown command: ${[command, ...rest].join(' ')}` : 'Missing command');

  const { email, password, name, token, admin } = parsed.values;
  const input = signUpSchema.safeParse({ email: email ?? '', password: password ?? '', ...(name !== undefined ? { name } : {}) });
  if (!input.success) {
    const fields = zodFields(input.error);
    throw new UsageError(Object.entries(fields).map(([field, message]) => `--${field}: ${message}`).join('; '));
  }

  await openDatabase(); // opens the database (DATA_DIR's, or DATABASE_URL's) and applies pending migrations
  const user = await createUser(input.data, admin ? { role: 'admin' } : {});
  const created = token ? (await createApiToken(user.id, 'cli')).token : null;
  return { userId: user.id, token: created };
}

main(process.argv.slice(2))
  .then((result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
  })
  .catch((err: unknown) => {
    if (err instanceof UsageError) process.stderr.write(`error: ${err.message}\n${USAGE}\n`);
    else if (err instanceof AppError) process.stderr.write(`error: ${err.message}\n`);
    else process.stderr.write(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  })
  .finally(closeDb);
