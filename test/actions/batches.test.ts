import { scope, signIn } from '../support/action-session';
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';

const actions = await import('@/app/(app)/batches/actions');
const { schema } = await import('@/server/db');
const { makeUser } = await import('../support/users');
const { makeAgents, makeTeam } = await import('../support/teams');
const { NOT_FOUND, rowsOf } = await import('./support');

const batchRows = () => rowsOf(schema.batches, schema.batchItems);
const body = (target: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  target,
  template: 'Greet {{name}}',
  columns: ['name'],
  items: [{ name: 'Ada' }, { name: '李雷 😀' }],
  concurrency: 1,
  idempotencyKey: crypto.randomUUID(),
  ...extra,
});

describe('batch actions (the start form, Cancel, Retry failed, Re-run cancelled)', () => {
  it('createBatchAction starts the batch the API would, for an agent or a team member, idempotent by key', async () => {
    const alice = await makeUser('alice');
    const [agent] = await makeAgents(alice.id, ['Lister']);
    signIn(alice);
    const input = body({ agentId: agent!.id });
    const first = await actions.createBatchAction(input);
    expect(first).toMatchObject({ ok: true, data: { batch: { status: 'running', total: 2, target: { kind: 'agent', agentId: agent!.id, name: 'Lister' }, origin: 'person' } } });
    // The same draft sent again (a lost answer, a second click) is the same batch, not a second one.
    const again = await actions.createBatchAction(input);
    expect(again.ok && first.ok && again.data.batch.id).toBe(first.ok && first.data.batch.id);

    const { team } = await makeTeam(alice.id);
    const member = team.members[0]!;
    const forMember = await actions.createBatchAction(body({ teamId: team.id, memberId: member.id }));
    expect(forMember).toMatchObject({ ok: true, data: { batch: { target: { kind: 'member', teamId: team.id, memberId: member.id } } } });
  });

  it('refuses a template field that is not a column, naming it, and writes nothing', async () => {
    const alice = await makeUser('alice');
    const [agent] = await makeAgents(alice.id, ['Lister']);
    signIn(alice);
    const before = await batchRows();
    const result = await actions.createBatchAction(body({ agentId: agent!.id }, { template: 'Greet {{nme}}' }));
    expect(result).toMatchObject({ ok: false, error: { code: 'validation_error', fields: { template: expect.stringContaining('{{nme}}') } } });
    expect(await batchRows()).toBe(before);
  });

  it('another owner can’t start a batch with someone’s agent or member, nor cancel or retry their batch: not_found, nothing changes', async () => {
    const alice = await makeUser('alice');
    const mallory = await makeUser('mallory');
    const [agent] = await makeAgents(alice.id, ['Lister']);
    const { team } = await makeTeam(alice.id);
    signIn(alice);
    const started = await actions.createBatchAction(body({ agentId: agent!.id }));
    if (!started.ok) throw new Error(started.error.message);
    const batchId = started.data.batch.id;

    signIn(mallory);
    const before = await batchRows();
    expect(await actions.createBatchAction(body({ agentId: agent!.id }))).toEqual(NOT_FOUND);
    expect(await actions.createBatchAction(body({ teamId: team.id, memberId: team.members[0]!.id }))).toEqual(NOT_FOUND);
    expect(await actions.cancelBatchAction(batchId)).toEqual(NOT_FOUND);
    expect(await actions.retryFailedBatchAction(batchId)).toEqual(NOT_FOUND);
    expect(await actions.retryCancelledBatchAction(batchId)).toEqual(NOT_FOUND);
    // Not an id at all is the same answer.
    expect(await actions.cancelBatchAction({ id: batchId })).toEqual(NOT_FOUND);
    expect(await batchRows()).toBe(before);
  });

  it('cancelBatchAction ends every unfinished item of the owner’s batch at once', async () => {
    const alice = await makeUser('alice');
    const [agent] = await makeAgents(alice.id, ['Lister']);
    signIn(alice);
    const started = await actions.createBatchAction(body({ agentId: agent!.id }));
    if (!started.ok) throw new Error(started.error.message);
    const cancelled = await actions.cancelBatchAction(started.data.batch.id);
    expect(cancelled).toMatchObject({ ok: true, data: { batch: { status: 'cancelled', counts: { queued: 0, running: 0 } } } });
    // Retry failed doesn't revive a cancelled batch; re-running its cancelled items does.
    expect(await actions.retryFailedBatchAction(started.data.batch.id)).toMatchObject({ ok: false, error: { code: 'batch_cancelled' } });
    expect(await actions.retryCancelledBatchAction(started.data.batch.id)).toMatchObject({
      ok: true,
      data: { batch: { status: 'running', counts: { cancelled: 0 } } },
    });
    // Running again, it has nothing cancelled to re-run.
    expect(await actions.retryCancelledBatchAction(started.data.batch.id)).toMatchObject({ ok: false, error: { code: 'batch_not_cancelled' } });
    await actions.cancelBatchAction(started.data.batch.id);
  });

  it('retryCancelledBatchAction signed out answers unauthorized and changes nothing', async () => {
    const alice = await makeUser('alice');
    const [agent] = await makeAgents(alice.id, ['Lister']);
    signIn(alice);
    const started = await actions.createBatchAction(body({ agentId: agent!.id }));
    if (!started.ok) throw new Error(started.error.message);
    await actions.cancelBatchAction(started.data.batch.id);
    scope.headers = new Headers();
    const before = await batchRows();
    expect(await actions.retryCancelledBatchAction(started.data.batch.id)).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    expect(await batchRows()).toBe(before);
  });
});
