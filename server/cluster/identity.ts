import 'server-only';
import crypto from 'node:crypto';
import os from 'node:os';

export type ProcessIdentity = { id: string; pid: number; host: string };

// Route bundles and instrumentation may load separate copies of this module: one identity per process.
const g = globalThis as unknown as { __ensembleProcess?: ProcessIdentity };

/**
 * This app process among those sharing the database (ADR 033 §5): a new id at every start, so a restarted process
 * never mistakes its dead predecessor's teams and runs for its own — it takes them over like any other process would.
 */
export function thisProcess(): ProcessIdentity {
  return (g.__ensembleProcess ??= { id: crypto.randomUUID(), pid: process.pid, host: os.hostname() });
}
