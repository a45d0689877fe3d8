import crypto from 'node:crypto';

/**
 * A benchmark's owner: an account with two agents (Alpha and Beta) and `teamCount` teams of both, as the scheduler
 * benchmark and the several-processes seed make them. The app's modules load on first call, after the caller has
 * set the environment (DATA_DIR or DATABASE_URL) they read.
 */
export async function benchOwner(label: string, teamCount: number) {
  const { agentCreateSchema } = await import('@/lib/schemas/agent');
  const { createUser } = await import('@/server/auth/users');
  const { createAgent } = await import('@/server/agents/catalog');
  const { createTeam } = await import('@/server/teams/teams');
  const user = await createUser({ email: `${label}-${crypto.randomUUID().slice(0, 6)}@bench.test`, password: 'benchmark-password' });
  const agents = [];
  for (const n of ['Alpha', 'Beta']) agents.push(await createAgent(user.id, agentCreateSchema.parse({ name: `${n} ${label}` })));
  const teams = [];
  for (let i = 0; i < teamCount; i++) {
    teams.push((await createTeam(user.id, { requestId: `${label}-${i}`, name: `${label} team ${i}`, goal: 'Benchmark', agentIds: agents.map((a) => a.id) })).team);
  }
  return { user, teams };
}
