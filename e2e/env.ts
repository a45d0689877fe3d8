import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Settings shared by playwright.config.ts, the web server it starts, and the fixtures (which run in worker
 * processes). Values are put into process.env the first time this module loads in the runner, so workers,
 * which inherit the runner's environment, see the same data directory, port and secret.
 * scripts/e2e.mjs sets them up front (and removes the data directory afterwards).
 */
function ensure(name: string, make: () => string): string {
  process.env[name] ||= make();
  return process.env[name]!;
}

export const E2E_PORT = Number(ensure('E2E_PORT', () => '3100'));
export const BASE_URL = `http://127.0.0.1:${E2E_PORT}`;
export const DATA_DIR = ensure('E2E_DATA_DIR', () => fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-e2e-')));
export const DIST_DIR = ensure('NEXT_DIST_DIR', () => '.next-e2e');
export const AUTH_SECRET = ensure('E2E_AUTH_SECRET', () => crypto.randomBytes(32).toString('base64url'));
/** Where e2e/web.spec.ts starts its SearXNG stub: the server's search provider (WEB_SEARCH_URL below). */
export const SEARCH_STUB_PORT = Number(ensure('E2E_SEARCH_PORT', () => String(E2E_PORT + 1)));
export const ROOT_DIR = path.resolve(__dirname, '..');

/** The environment both the server and the user CLI run with: the same database, cheap password hashing. */
export const SERVER_ENV = {
  DATA_DIR,
  NEXT_DIST_DIR: DIST_DIR,
  AUTH_SECRET,
  SCRYPT_LOG_N: '10',
  ALLOW_SIGNUP: 'true',
  NODE_ENV: 'production',
  // A test's stub on loopback may be reached: an account's own MCP server (e2e/mcp-own-server.spec.ts) and a page
  // web_fetch reads (e2e/web.spec.ts). The admin's narrow escape from the egress rule (ADR 054 §3, ADR 060):
  // 127.0.0.1 only; the rest of loopback, the private ranges and the metadata addresses stay refused.
  EGRESS_ALLOW: '127.0.0.1/32',
  // web_search exists only with a provider (ADR 060): a SearXNG stub that e2e/web.spec.ts starts. The tool is offered
  // only to an agent that chose the Web group, which no other spec does.
  WEB_SEARCH_PROVIDER: 'searxng',
  WEB_SEARCH_URL: `http://127.0.0.1:${SEARCH_STUB_PORT}`,
} as const;

/**
 * CHROMIUM_PATH when set, else Debian's headless shell, else Debian's Chromium, else undefined (Playwright's own
 * browser, if installed). The headless shell is the same Blink as the browser without the browser's own interface
 * (what Playwright's own headless runs use): less CPU per page on CI's two cores (docs/performance.md, CI). A headed
 * run (`--headed`) needs the full browser: CHROMIUM_PATH=/usr/bin/chromium.
 */
export function chromiumPath(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium-headless-shell', '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((file): file is string => !!file && fs.existsSync(file));
}
