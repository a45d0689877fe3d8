// Seeds the demo account used by `npm run demo` (scripts/demo.mjs passes DEMO_EMAIL and DEMO_PASSWORD).
// Idempotent: an existing demo account is reused and its password reset to the one being printed, and the
// three demo agents are only created when missing. Prints one JSON line.
import { eq } from 'drizzle-orm';
import { seedDemoAgents } from '@/server/agents/demo-agents';
import { hashPassword, verifyPassword } from '@/server/auth/passwords';
import { bumpSessionVersion, createUser, findUserByEmail } from '@/server/auth/users';
import { closeDb, openDatabase, schema, writeTx } from '@/server/db';

async function main() {
  const email = process.env.DEMO_EMAIL;
  const password = process.env.DEMO_PASSWORD;
  if (!email || !password) throw new Error('DEMO_EMAIL and DEMO_PASSWORD must be set');

  await openDatabase(); // opens the database and applies pending migrations
  let created = false;
  let user = await findUserByEmail(email);
  if (!user) {
    await createUser({ email, password, name: 'Demo' });
    user = (await findUserByEmail(email))!;
    created = true;
  } else if (!(await verifyPassword(password, user.passwordHash))) {
    // The printed password must work: bring the account in line with it, and end sessions under the old one.
    const passwordHash = await hashPassword(password);
    const userId = user.id;
    await writeTx(async (tx) => {
      await tx.update(schema.users).set({ passwordHash }).where(eq(schema.users.id, userId));
      await bumpSessionVersion(userId, tx);
    });
  }
  const agents = await seedDemoAgents(user.id);
  // On a fresh data directory the demo account is the first one, so it is the instance's admin.
  console.log(JSON.stringify({ userId: user.id, email: user.email, role: user.role, created, agents: agents.map((a) => a.name) }));
}

void main()
  .catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  })
  .finally(closeDb);
