/**
 * `NODE_OPTIONS=--require scripts/bench-providers.loop-delay.cjs` for the bench's `next start`: measures the server's
 * event-loop delay (perf_hooks.monitorEventLoopDelay, 10 ms resolution). On SIGUSR2 it writes what it measured since
 * the previous signal to LOOP_DELAY_OUT as JSON (ms) and starts afresh. Only in the Next.js server process, so the
 * other processes that inherit NODE_OPTIONS (the user CLI) are untouched.
 */
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a --require preload is CommonJS */
const fs = require('node:fs');
const { monitorEventLoopDelay } = require('node:perf_hooks');

const out = process.env.LOOP_DELAY_OUT;
if (out && /[\\/]next$/.test(process.argv[1] ?? '')) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  process.on('SIGUSR2', () => {
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    const snapshot = { pid: process.pid, p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max), samples: histogram.count };
    fs.writeFileSync(`${out}.tmp`, JSON.stringify(snapshot));
    fs.renameSync(`${out}.tmp`, out);
    histogram.reset();
  });
}
