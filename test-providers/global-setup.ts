/**
 * Starts the stubs and one `next start` of the built app pointed at them, for every file of the provider suite.
 * The app runs with the offline guard (offline-preload.cjs): any connection it tries beyond loopback is refused and
 * logged, and offline.test.ts reads that log.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startApp } from './app';
import { providerEnv, startStubs } from './stubs';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stubs = await startStubs();
  const offlineLog = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-offline-')), 'refused.jsonl');
  const preload = path.resolve(import.meta.dirname, 'offline-preload.cjs');
  let app;
  try {
    app = await startApp({
      ...providerEnv(stubs),
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${preload}`.trim(),
      OFFLINE_LOG: offlineLog,
    });
  } catch (error) {
    await stubs.close();
    throw error;
  }
  project.provide('providersApp', { url: app.url, token: app.token, pid: app.pid, offlineLog });
  return async () => {
    await app.stop();
    await stubs.close();
    fs.rmSync(path.dirname(offlineLog), { recursive: true, force: true });
  };
}
