import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConversationBusyError, findRun, startRun } from '@/server/agents/runs';
import { schema, writeTx } from '@/server/db';
import { StepTimeoutError, TeamWorker } from '@/server/scheduler/worker';
import { cancelJob } from '@/server/teams/cancel';
import { sendRequest } from '@/server/teams/requests';
import { GATE_GROUP, registerGateTool } from '../support/gate-tool';
import { job, settled, withScheduler } from '../support/scheduler';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';

const STEP_BOUND_MS = 100;
const gate = registerGateTool();
withScheduler({ tickMs: 50, stepTimeoutMs: STEP_BOUND_MS });

afterEach(() => {
  vi.restoreAllMocks();
});

/** Steps that record how many of them execute at once, and in which order they start and end. */
function concurrencyProbe() {
  const probe = { executing: 0, maxExecuting: 0, order: [] as string[] };
  const enter = (name: string) => {
    probe.executing += 1;
    probe.maxExecuting = Math.max(probe.maxExecuting, probe.executing);
    probe.order.push(`${name} start`);
  };
  const leave = (name: string) => {
    probe.executing -= 1;
    probe.order.push(`${name} end`);
  };
  return { probe, enter, leave };
}

function deferred() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('TeamWorker: a step held past its bound', () => {
  it('aborts the overrunning step and starts the next one only after it has settled', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const worker = new TeamWorker('team-a', 30);
    const { probe, enter, leave } = concurrencyProbe();
    const held = deferred();
    let heldSignal: AbortSignal | undefined;
    let secondStarted = false;

    // The first step ignores its signal and holds on until the test lets it go.
    void worker.run('held', async (signal) => {
      heldSignal = signal;
      enter('held');
      await held.promise;
      leave('held');
    });
    const second = worker.run('next', () => {
      secondStarted = true;
      enter('next');
      leave('next');
    });

    // Past the bound: either the first step's signal aborted (new) or the second step started beside it (old).
    await until(() => heldSignal?.aborted || secondStarted, 2_000, 'the bound to pass');
    expect(secondStarted).toBe(false);
    expect(heldSignal?.reason).toBeInstanceOf(StepTimeoutError);
    expect(worker.idle).toBe(false);

    held.resolve();
    await second;
    expect(probe.maxExecuting).toBe(1);
    expect(probe.order).toEqual(['held start', 'held end', 'next start', 'next end']);
    expect(worker.idle).toBe(true);
  });

  it('a step that honours its signal stops at the bound; a failing step does not stop the chain', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const worker = new TeamWorker('team-b', 20);
    const ran: string[] = [];
    const started = Date.now();
    await Promise.all([
      worker.run('abortable', (signal) => new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))),
      worker.run('fails', () => {
        ran.push('fails');
        throw new Error('boom');
      }),
      worker.run('after', () => {
        ran.push('after');
      }),
    ]);
    expect(ran).toEqual(['fails', 'after']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(20);
    expect(worker.idle).toBe(true);
  });
});

describe('scheduler: a stop step held past its bound', () => {
  it("leaves the job cancelling while its run still executes, and never runs the member's next job beside it", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    gate.close();
    const alice = await makeUser('alice');
    const { team, agents } = await makeTeam(alice.id, ['Holder', 'Other']);
    await writeTx(async (tx) => {
      await tx.update(schema.agents).set({ toolGroups: [GATE_GROUP] }).where(eq(schema.agents.id, agents[0]!.id));
    });
    const member = team.members[0]!;

    const first = (await sendRequest(alice.id, team.id, { memberIds: [member.id], text: '/call hold {}\n/reply first', draftKey: crypto.randomUUID() })).jobs[0]!;
    await until(() => gate.executing === 1, 5_000, 'the first job to call hold');
    const second = (await sendRequest(alice.id, team.id, { memberIds: [member.id], text: '/call hold {}\n/reply second', draftKey: crypto.randomUUID() })).jobs[0]!;

    expect((await cancelJob(alice.id, team.id, first.id)).status).toBe('cancelling');
    // The stop step waits for the run to stop, which the held tool prevents: the step overruns and is aborted.
    await until(() => warn.mock.calls.some((c) => String(c[0]).includes(`stop ${first.id} overran`)), 5_000, 'the stop step to overrun');

    // The defined state: the job is still cancelling, its run still running, the conversation still busy, and the
    // member's next job has not started.
    const firstRunId = (await job(first.id)).runId!;
    expect((await job(first.id)).status).toBe('cancelling');
    expect((await findRun(firstRunId))?.status).toBe('running');
    expect(await job(second.id)).toMatchObject({ status: 'queued', runId: null });
    await expect(startRun(member.conversationId!, { text: 'direct' }, { idempotencyKey: crypto.randomUUID() })).rejects.toThrow(ConversationBusyError);

    gate.open();
    expect((await settled(first.id)).status).toBe('cancelled');
    expect((await findRun(firstRunId))?.status).toBe('cancelled');
    expect((await settled(second.id)).result).toBe('second');
    // What must not happen: two tool calls of one member (two steps' runs of one team) executing at once.
    expect(gate.maxExecuting).toBe(1);
    expect((await job(second.id)).admittedAt!.getTime()).toBeGreaterThanOrEqual((await job(first.id)).completedAt!.getTime());
  });
});
