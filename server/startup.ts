import 'server-only';
import { closeCheckpointer } from '@/server/agents/checkpointer';
import { closeDb, getDb } from '@/server/db';
import { runShutdownHooks } from '@/server/lifecycle';

const g = globalThis as unknown as { __ensembleStarted?: boolean };

const EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * Process start-up for `next start` and `next dev`, called once from instrumentation.ts (Node.js runtime only):
 * open the database (which applies pending migrations), reconcile runs left unfinished by a previous process,
 * and close the databases cleanly when the process is told to stop.
 */
export async function startServerProcess(): Promise<void> {
  if (g.__ensembleStarted) return;
  g.__ensembleStarted = true;

  // Fails loudly (and stops the server) when the data directory or a migration is broken.
  getDb();

  const { recoverRuns } = await import('@/server/agents/recovery');
  await recoverRuns();

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void stop(signal));
  }
  // Whatever ends the process (Next's own signal handler exits too), leave the databases closed.
  process.once('exit', closeDatabases);
}

async function stop(signal: keyof typeof EXIT_CODES): Promise<void> {
  await runShutdownHooks();
  closeDatabases();
  // Exit now rather than let a late request reopen the database; unfinished runs are recovered on the next start.
  process.exit(EXIT_CODES[signal]);
}

function closeDatabases(): void {
  try {
    closeCheckpointer();
  } finally {
    closeDb();
  }
}
