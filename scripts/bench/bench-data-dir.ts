import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Set up a single-process benchmark's app before it loads any of the app's modules: a data directory of its own
 * (returned, for the caller to remove), cheap password hashing (accounts are set-up, not what is measured), and the run
 * core's plug-ins registered as start-up does (server/startup.ts), so runs are assembled as in the app.
 */
export async function benchDataDir(prefix: string): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  process.env.DATA_DIR = dataDir;
  process.env.SCRYPT_LOG_N = '10';
  (await import('@/server/agents/delegation/register')).registerDelegation();
  (await import('@/server/mcp/tool-group/register')).registerMcpTools();
  return dataDir;
}
