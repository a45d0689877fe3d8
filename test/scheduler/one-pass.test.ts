import crypto from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobPort } from '@/server/scheduler/job-port';
import { SchedulerRuntime } from '@/server/scheduler/runtime';
import { sendRequest } from '@/server/teams/requests';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';

let runtime: SchedulerRuntime | undefined;
afterEach(async () => {
  await runtime?.drain();
  runtime = undefined;
});

/** A job port whose admit waits for the test: a planning pass is held half-way (after its view, inside admission). */
function heldPort() {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const probe = { admitting: 0, maxAdmitting: 0, admits: 0 };
  const port: JobPort = {
    prepare() {},
    async admit() {
      probe.admits += 1;
      probe.admitting += 1;
      probe.maxAdmitting = Math.max(probe.maxAdmitting, probe.admitting);
      await gate;
      probe.admitting -= 1;
      return false;
    },
    async launch() {},
    async finalize() {},
    async stop() {},
  };
  return { port, probe, release: () => release() };
}

describe('the scheduler loop: one planning pass at a time', () => {
  it('wakes during an unfinished pass start no second pass beside it, only one more after it', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    await sendRequest(alice.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply held', draftKey: crypto.randomUUID() });
    const { port, probe, release } = heldPort();
    runtime = new SchedulerRuntime(port, { tickMs: 60_000 }); // no tick: only the wakes below
    runtime.start();
    await until(() => probe.admitting === 1, 5_000, 'a pass held inside admission');
    const passes = runtime.stats.passes;
    // Wakes while the pass is held (each followed by a turn of the event loop): none of them starts a pass.
    for (let i = 0; i < 20; i++) {
      runtime.wake();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(runtime.stats.passes).toBe(passes);
    expect(probe.maxAdmitting).toBe(1);
    release();
    // The pass ends; the wakes it absorbed run one more pass after it (which admits again: the job is still queued).
    await until(() => runtime!.stats.passes > passes, 5_000, 'the pass asked for meanwhile');
    expect(probe.maxAdmitting).toBe(1);
  });
});
