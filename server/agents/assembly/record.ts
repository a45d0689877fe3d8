import 'server-only';
import { and, desc, eq, isNotNull, lt, ne, or, sql } from 'drizzle-orm';
import { schema, writeTx } from '@/server/db';
import { tieBreak } from '@/server/db/dialect';
import { encodedPlaceholder, preparedPerConnection } from '@/server/db/prepared';
import type { Agent, Run } from '@/server/db/schema';
import type { AssemblyChange, AssemblyDescriptor } from '@/lib/types/assembly';
import type { RunContext } from '../run-types';
import { assemblyChanges } from './changes';
import { assemblyDescriptor, type AssemblyAgent } from './descriptor';
import { fingerprintOf } from './fingerprint';
import { setupOf, type StoredAssembly } from './recorded-setup';

/**
 * Record how the agent is assembled for this run (runs.fingerprint, runs.assembly = { descriptor, changes, agent:
 * the catalog agent's settings `options.setup`, which a continued run is built from again }) and
 * return the fingerprint. Changes compare with the conversation's previous run that has a fingerprint (null when
 * there is none). Once per run: a run continued after a restart, or executed again, keeps what it recorded first.
 */
export async function recordAssembly(run: Run, agent: AssemblyAgent, context: RunContext, options: { model?: string; setup?: Agent; timeLimitMinutes?: number } = {}): Promise<string> {
  const descriptor = await assemblyDescriptor(agent, context, options);
  const fingerprint = fingerprintOf(descriptor);
  return writeTx(async (tx) => {
    const statements = assemblyStatements(tx);
    const [current] = await statements.fingerprint.execute({ id: run.id });
    if (current?.fingerprint) return current.fingerprint;
    const [previous] = await statements.previous.execute({ id: run.id, conversationId: run.conversationId, createdAt: run.createdAt });
    const stored: StoredAssembly = {
      descriptor,
      changes: previous ? await changesSince(statements, previous, fingerprint, descriptor) : null,
      ...(options.setup ? { agent: setupOf(options.setup) } : {}),
    };
    await statements.record.execute({ id: run.id, fingerprint, assembly: stored });
    return fingerprint;
  });
}

/**
 * What changed since the previous run's assembly. The same fingerprint is the same descriptor (it hashes the
 * canonical descriptor), so most runs — an agent not edited since — answer without reading and walking the previous
 * descriptor.
 */
async function changesSince(
  statements: ReturnType<typeof assemblyStatements>,
  previous: { id: string; fingerprint: string | null },
  fingerprint: string,
  descriptor: AssemblyDescriptor,
): Promise<AssemblyChange[] | null> {
  if (previous.fingerprint === fingerprint) return [];
  const [row] = await statements.assembly.execute({ id: previous.id });
  const before = (row?.assembly as StoredAssembly | null | undefined)?.descriptor;
  return before ? assemblyChanges(before, descriptor) : null;
}

// Once per run: built once per connection (server/db/prepared.ts).
const assemblyStatements = preparedPerConnection((db) => {
  const { runs } = schema;
  // The newest earlier run (by creation, tieBreak breaking ties) of the conversation with a recorded assembly.
  const order = tieBreak(runs.id);
  const createdAt = encodedPlaceholder('createdAt', runs.createdAt);
  const own = sql`(select ${order} from ${runs} where ${runs.id} = ${sql.placeholder('id')})`;
  return {
    fingerprint: db.select({ fingerprint: runs.fingerprint }).from(runs).where(eq(runs.id, sql.placeholder('id'))).prepare(),
    previous: db
      .select({ id: runs.id, fingerprint: runs.fingerprint })
      .from(runs)
      .where(
        and(
          eq(runs.conversationId, sql.placeholder('conversationId')),
          ne(runs.id, sql.placeholder('id')),
          isNotNull(runs.fingerprint),
          or(lt(runs.createdAt, createdAt), and(eq(runs.createdAt, createdAt), sql`${order} < ${own}`)),
        ),
      )
      .orderBy(desc(runs.createdAt), desc(order))
      .limit(1)
      .prepare(),
    assembly: db.select({ assembly: runs.assembly }).from(runs).where(eq(runs.id, sql.placeholder('id'))).prepare(),
    record: db
      .update(runs)
      .set({ fingerprint: sql`${sql.placeholder('fingerprint')}`, assembly: encodedPlaceholder('assembly', runs.assembly) })
      .where(eq(runs.id, sql.placeholder('id')))
      .prepare(),
  };
});
