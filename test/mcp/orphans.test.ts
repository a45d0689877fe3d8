import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { alive, STUB, stubLog, tempDir, until } from './support';

// (node runs the fixture itself, with tsx as a loader: the tsx CLI would put a second process in between.)
// A SIGKILLed app leaves no MCP server running (ADR 054): the app cannot clean up, so the launcher must notice its
// stdin close and end the server — here one that ignores stdin EOF itself, the hardest case.

describe('an app process killed with SIGKILL', () => {
  it('leaves neither the launcher nor the server running', async () => {
    const log = path.join(tempDir('orphan'), 'log.jsonl');
    const app = spawn(process.execPath, ['--import', 'tsx', '--conditions=react-server', 'test/mcp/fixtures/app-with-mcp.ts', log, STUB], { stdio: ['ignore', 'pipe', 'inherit'] });
    // Whatever happens below, the app does not outlive the test.
    onTestFinished(() => void app.kill('SIGKILL'));
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      app.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      app.on('exit', (code) => reject(new Error(`the app exited early (${code})`)));
    });
    const { launcher } = JSON.parse(line) as { launcher: number };
    const server = stubLog(log).find((e) => e.event === 'started')!.pid as number;
    expect(alive(launcher)).toBe(true);
    expect(alive(server)).toBe(true);

    app.kill('SIGKILL');
    await until(() => !alive(server) && !alive(launcher), 5_000, 'the launcher and the server to be gone');
  }, 30_000);
});
