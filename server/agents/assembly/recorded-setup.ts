import 'server-only';
import { and, desc, eq, isNotNull, lte, ne, sql } from 'drizzle-orm';
import { schema } from '@/server/db';
import { encodedPlaceholder, preparedPerConnection } from '@/server/db/prepared';
import type { Agent, Run } from '@/server/db/schema';
import type { AssemblyChange, AssemblyDescriptor } from '@/lib/types/assembly';

/**
 * The catalog agent's settings a run was built from, recorded with its assembly when it first starts
 * (runs.assembly.agent). Everything the graph, the guards and delegation read; not its identity or timestamps.
 */
export type AgentSetup = Omit<Agent, 'id' | 'ownerId' | 'createdAt' | 'updatedAt'>;

/**
 * What runs.assembly holds: the descriptor recorded at the run's start, its changes from the previous run, the setup.
 * Here, beside the setup, so the assembly record (which the executor writes) and the API views (which read runs)
 * share it without importing each other.
 */
export type StoredAssembly = {
  descriptor: AssemblyDescriptor;
  changes: AssemblyChange[] | null;
  /** The catalog agent's settings the run was built from (AgentSetup); absent in older records. */
  agent?: AgentSetup;
};

export function setupOf(agent: Agent): AgentSetup {
  const { id: _id, ownerId: _owner, createdAt: _created, updatedAt: _updated, ...setup } = agent;
  return setup;
}

/**
 * The agent as this run must run it. Caller policy is never reloaded from the mutable catalog (seed 000): a run
 * continued after a restart or a takeover runs with the setup it recorded at its start, and a resume (the answer to
 * an approval, which goes on with the interrupted turn) with that turn's. A new human message — a clarification's
 * answer too — starts a new turn, which takes the agent as it is now, as do runs recorded before setups were kept.
 * `current` is the catalog row (it must still exist: a deleted agent ends its runs).
 */
export async function agentAsRecorded(run: Run, current: Agent): Promise<Agent> {
  const [own] = await setupStatements().own.execute({ id: run.id });
  const recorded = setupIn(own?.assembly) ?? (continuesEarlierRun(run) ? await previousSetup(run) : undefined);
  return recorded ? { ...current, ...recorded } : current;
}

const continuesEarlierRun = (run: Run): boolean => run.kind === 'resume';

async function previousSetup(run: Run): Promise<AgentSetup | undefined> {
  const [previous] = await setupStatements().previous.execute({ id: run.id, conversationId: run.conversationId, createdAt: run.createdAt });
  return setupIn(previous?.assembly);
}

const setupIn = (assembly: unknown): AgentSetup | undefined => (assembly as StoredAssembly | null | undefined)?.agent;

// Once per run: built once per connection (server/db/prepared.ts).
const setupStatements = preparedPerConnection((db) => {
  const { runs } = schema;
  const createdAt = encodedPlaceholder('createdAt', runs.createdAt);
  return {
    own: db.select({ assembly: runs.assembly }).from(runs).where(eq(runs.id, sql.placeholder('id'))).prepare(),
    // The conversation's newest earlier run with a recorded assembly: the one a resume goes on from (a resume is
    // accepted only while the newest run waits).
    previous: db
      .select({ assembly: runs.assembly })
      .from(runs)
      .where(and(eq(runs.conversationId, sql.placeholder('conversationId')), ne(runs.id, sql.placeholder('id')), isNotNull(runs.fingerprint), lte(runs.createdAt, createdAt)))
      .orderBy(desc(runs.createdAt), desc(runs.id))
      .limit(1)
      .prepare(),
  };
});
