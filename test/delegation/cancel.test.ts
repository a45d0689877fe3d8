import { afterEach, describe, expect, it } from 'vitest';
import { GET as childrenRoute } from '@/app/api/v1/runs/[id]/children/route';
import type { DelegationView } from '@/lib/types/delegation';
import { cancel, start } from '@/server/agents/runs';
import { setRunMinuteMsForTests } from '@/server/agents/run-time-limit';
import { conversationWith, finished, send } from '../agents/helpers';
import { makeUser } from '../support/users';
import { until } from '../support/wait';
import { delegationsOf, runRow, taskCall, withDelegationScheduler } from './helpers';

withDelegationScheduler();
afterEach(() => setRunMinuteMsForTests(undefined));

const also = (args: Record<string, unknown>) => `/also task ${JSON.stringify(args)}`;

describe('cancel: cancelling a parent cancels its children', () => {
  it('the running child’s run is cancelled, the queued one never starts, the parent ends cancelled', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { maxConcurrentChildren: 1 });
    const script = [taskCall({ description: 'slow', prompt: '/sleep 20000\n/reply late' }), also({ description: 'queued', prompt: '/reply never' })].join('\n');
    const { run } = await start(alice.id, conversation.id, { text: script }, { idempotencyKey: 'cancel-1' });
    const childRunId = await until(async () => (await delegationsOf(run.id))[0]?.childRunId, 10_000, 'child started');
    await until(async () => (await runRow(childRunId)).status === 'running', 10_000, 'child running');
    expect((await delegationsOf(run.id)).map((d) => d.status)).toEqual(['running', 'queued']);
    await cancel(alice.id, run.id);
    const parent = await finished(run.id);
    expect(parent.status).toBe('cancelled');
    // What must not happen: a child left running (or started later) after its parent was cancelled.
    await until(async () => (await delegationsOf(run.id)).every((d) => d.status === 'cancelled'), 10_000, 'children cancelled');
    const [slow, queued] = await delegationsOf(run.id);
    expect((await runRow(slow!.childRunId!)).status).toBe('cancelled');
    expect(queued).toMatchObject({ status: 'cancelled', childRunId: null, admittedAt: null });
  });
});

describe('a child has a time limit: min(the delegation bound, the parent’s remaining time)', () => {
  it('a child past LIMITS.delegation.childTimeLimitMinutes is stopped as time_capped and the parent continues', async () => {
    // One "minute" = 400 ms: the child's 10 minutes are 4 s; the parent's own 120 minutes are far away.
    setRunMinuteMsForTests(400);
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { timeLimitMinutes: 120 });
    const run = await send(alice.id, conversation.id, taskCall({ description: 'slow', prompt: '/sleep 8000\n/reply too late' }), undefined);
    expect(run.status).toBe('success');
    const [row] = await delegationsOf(run.id);
    expect(row).toMatchObject({ status: 'failed' });
    expect(row!.result).toMatchObject({ status: 'failed', stopReason: 'time_capped' });
    expect(await runRow(row!.childRunId!)).toMatchObject({ status: 'error', stopReason: 'time_capped' });
  });

  it('a parent with little time left gives its child only that', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { timeLimitMinutes: 3 });
    const run = await send(alice.id, conversation.id, taskCall({ description: 'quick', prompt: '/reply quick' }));
    const child = await runRow((await delegationsOf(run.id))[0]!.childRunId!);
    const limit = (child.input as { context: { delegation: { timeLimitMinutes: number } } }).context.delegation.timeLimitMinutes;
    expect(limit).toBeLessThanOrEqual(3);
    expect(limit).toBeGreaterThan(2.5);
  });
});

describe('GET /api/v1/runs/:id/children', () => {
  const children = (auth: Record<string, string>, runId: string) =>
    childrenRoute(new Request(`http://localhost/api/v1/runs/${runId}/children`, { headers: auth }), { params: Promise.resolve({ id: runId }) });

  it('lists the owner’s run’s children with status and result; another owner gets 404 as for a missing run', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { agent, conversation } = await conversationWith(alice.id, { name: 'Lead' });
    const run = await send(alice.id, conversation.id, [taskCall({ description: 'first', prompt: '/reply one' }), also({ description: '', prompt: 'x' })].join('\n'));
    const res = await children(alice.auth, run.id);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { children: DelegationView[] };
    // In the order the ledger recorded them (parallel calls: a refusal is recorded before an accepted call).
    expect(body.children).toHaveLength(2);
    expect(body.children).toEqual(expect.arrayContaining([
      expect.objectContaining({ parentRunId: run.id, agentId: agent.id, agentName: 'Lead', provider: 'spawn', description: 'first', depth: 1, status: 'completed', result: expect.objectContaining({ output: 'one' }) }),
      expect.objectContaining({ status: 'failed', childRunId: null, error: 'The task arguments are not valid' }),
    ]));
    const [other, missing] = await Promise.all([children(bob.auth, run.id), children(alice.auth, 'no-such-run')]);
    expect(other.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(await other.json()).toEqual(await missing.json());
  });
});
