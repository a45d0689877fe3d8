/**
 * A long-lived `npm run user -- create … --token` for the e2e fixtures: one process per Playwright worker reads
 * JSON lines `{ "id", "email", "password", "admin"? }` on stdin and answers `{ "id", "userId", "token" }` (or
 * `{ "id", "error" }`) on stdout, using the same server functions as the CLI against the server's DATA_DIR.
 * Starting tsx once per worker instead of once per test saves seconds per test.
 * Run with `tsx --conditions=react-server` so 'server-only' resolves to its empty build.
 */
import readline from 'node:readline';
import { createApiToken } from '@/server/auth/tokens';
import { createUser } from '@/server/auth/users';
import { closeDb, openDatabase } from '@/server/db';

/**
 * `admin: true` makes an admin (like the CLI's --admin); every other fixture account is a member, even the data
 * directory's first, so which test happens to run first never changes what a test sees.
 */
type CreateRequest = { id: number; email: string; password: string; name?: string; admin?: boolean };

const reply = (message: object) => process.stdout.write(`${JSON.stringify(message)}\n`);

async function main(): Promise<void> {
  await openDatabase(); // applies migrations before the first request, like the CLI
  const lines = readline.createInterface({ input: process.stdin });
  lines.on('line', async (line) => {
    let request: CreateRequest | undefined;
    try {
      request = JSON.parse(line) as CreateRequest;
      const user = await createUser(
        { email: request.email, password: request.password, name: request.name },
        { role: request.admin ? 'admin' : 'member' },
      );
      reply({ id: request.id, userId: user.id, token: (await createApiToken(user.id, 'e2e')).token });
    } catch (error) {
      reply({ id: request?.id ?? -1, error: error instanceof Error ? error.message : String(error) });
    }
  });
  lines.on('close', () => void closeDb());
  reply({ id: 0, ready: true });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
