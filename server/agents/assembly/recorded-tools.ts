import 'server-only';
import { eq, sql } from 'drizzle-orm';
import type { AssemblyDescriptor } from '@/lib/types/assembly';
import { schema } from '@/server/db';
import { preparedPerConnection } from '@/server/db/prepared';
import type { StoredAssembly } from './recorded-setup';

/**
 * The tools the run recorded at its start, or null before it recorded them (a run's tools are built once before
 * its record is written, so only a continued run — after a restart or a takeover — finds its own). A tool group
 * whose tools can change outside the app (MCP servers) keeps a continued run to what it recorded.
 */
export async function recordedTools(runId: string): Promise<AssemblyDescriptor['tools'] | null> {
  const [row] = await statements().assembly.execute({ id: runId });
  return (row?.assembly as StoredAssembly | null | undefined)?.descriptor?.tools ?? null;
}

const statements = preparedPerConnection((db) => ({
  assembly: db.select({ assembly: schema.runs.assembly }).from(schema.runs).where(eq(schema.runs.id, sql.placeholder('id'))).prepare(),
}));
