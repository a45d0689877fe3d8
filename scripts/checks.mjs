#!/usr/bin/env node
// npm test's first step: `npm run lint` and `npm run typecheck` side by side (each keeps one core busy; CI has two),
// each one's output printed whole when it ends so the two never interleave. Fails when either fails.
import { spawn } from 'node:child_process';

function run(script) {
  const started = Date.now();
  return new Promise((resolve) => {
    let output = '';
    let done = false;
    const finish = (code) => {
      if (done) return;
      done = true;
      const seconds = Math.round((Date.now() - started) / 1000);
      process.stdout.write(`--- npm run ${script}: ${code === 0 ? 'passed' : `failed (exit ${code})`} in ${seconds} s\n${output}`);
      resolve(code);
    };
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => {
      output += `${error.message}\n`;
      finish(1);
    });
    child.on('close', (code, signal) => finish(code ?? (signal ? 1 : 0)));
  });
}

const codes = await Promise.all([run('lint'), run('typecheck')]);
process.exit(codes.every((code) => code === 0) ? 0 : 1);
