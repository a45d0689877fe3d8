/**
 * What a restart gives a process: a new identity (server/cluster/identity.ts). Tests that simulate a crash and a
 * start within one test process call this first, so on Postgres the rows the "dead" process wrote belong to a process
 * that no longer heartbeats, as they would after a real restart.
 */
export function becomeNewProcess(): void {
  (globalThis as unknown as { __ensembleProcess?: unknown }).__ensembleProcess = undefined;
}
