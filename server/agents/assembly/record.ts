import 'server-only';
import { and, desc, eq, isNotNull, lt, ne, or, sql } from 'drizzle-orm';
import { schema, writeTx } from '@/server/db'
import { tieBreak } from '@/server/db/dialect';
import type { Run } from '@/server/db/schema';
import type { RunContext } from '../tools/registry';
import type { StoredAssembly } from '../views';
import { assemblyChanges } from './changes';
import { assemblyDescriptor, type AssemblyAgent } from './descriptor';
import { fingerprintOf } from './fingerprint';

/**
 * Record how the agent is assembled for this run (runs.fingerprint, runs.assembly = { descriptor, changes }) and
 * return the fingerprint. Changes compare with the conversation's previous run that has a fingerprint (null when
 * there is none). Once per run: a run continued after a restart, or executed again, keeps what it recorded first.
 */
export async function recordAssembly(run: Run, agent: AssemblyAgent, context: RunContext, options: { model?: string } = {}): Promise<string> {
  const descriptor = await assemblyDescriptor(agent, context, options);
  const fingerprint = fingerprintOf(descriptor);
  return writeTx(async (tx) => {
    const [current] = await tx.select({ fingerprint: schema.runs.fingerprint }).from(schema.runs).where(eq(schema.runs.id, run.id));
    if (current?.fingerprint) return current.fingerprint;
    // The newest earlier run (by creation, tieBreak breaking ties) of the conversation with a recorded assembly.
    const order = tieBreak(schema.runs.id);
    const own = sql`(select ${order} from ${schema.runs} where ${schema.runs.id} = ${run.id})`;
    const [previous] = await tx
      .select({ fingerprint: schema.runs.fingerprint, assembly: schema.runs.assembly })
      .from(schema.runs)
      .where(
        and(
          eq(schema.runs.conversationId, run.conversationId),
          ne(schema.runs.id, run.id),
          isNotNull(schema.runs.fingerprint),
          or(lt(schema.runs.createdAt, run.createdAt), and(eq(schema.runs.createdAt, run.createdAt), sql`${order} < ${own}`)),
        ),
      )
      .orderBy(desc(schema.runs.createdAt), desc(order))
      .limit(1);
    const before = (previous?.assembly as StoredAssembly | null | undefined)?.descriptor;
    const stored: StoredAssembly = { descriptor, changes: before ? assemblyChanges(before, descriptor) : null };
    await tx.update(schema.runs).set({ fingerprint, assembly: stored }).where(eq(schema.runs.id, run.id));
    return fingerprint;
  });
}
