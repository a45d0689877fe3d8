/**
 * Next.js calls register() once per server process, before it serves requests. Start-up work (database,
 * recovery of unfinished runs, shutdown handlers) only makes sense in the Node.js runtime, never on the edge,
 * and is imported lazily so the edge bundle never sees better-sqlite3.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { startServerProcess } = await import('@/server/startup');
  await startServerProcess();
}
