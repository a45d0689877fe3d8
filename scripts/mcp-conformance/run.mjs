// npm run test:mcp:conformance: the official MCP conformance suite's client scenarios (initialize, tools_call,
// sse-retry for reconnection, elicitation) against the product's client (scripts/mcp-conformance/client.ts).
// A scenario outside the expected failures that fails, or one inside them that passes, fails the run.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const scenarios = process.argv.slice(2).length ? process.argv.slice(2) : ['initialize', 'tools_call', 'sse-retry', 'elicitation-sep1034-client-defaults'];
const client = `${process.execPath} --import tsx --conditions=react-server scripts/mcp-conformance/client.ts`;
let failed = 0;
for (const scenario of scenarios) {
  const res = spawnSync(
    process.execPath,
    [
      'node_modules/@modelcontextprotocol/conformance/dist/index.js',
      'client',
      '--command',
      client,
      '--scenario',
      scenario,
      '--expected-failures',
      'scripts/mcp-conformance/expected-failures.yml',
      '--output-dir',
      path.join('test-results', 'mcp-conformance'),
    ],
    { cwd: root, stdio: 'inherit' },
  );
  console.log(`${scenario}: ${res.status === 0 ? 'as expected' : 'FAILED'}`);
  if (res.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
