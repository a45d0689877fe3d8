import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GET as receiptsRoute } from '@/app/api/v1/runs/[id]/receipts/route';
import type { ApiRunReceipts } from '@/lib/types/receipts';
import { maintainSettledThread } from '@/server/agents/checkpointer';
import { databaseFingerprint } from '../security/support';
import { makeUser } from '../support/users';
import { conversationWith, send } from '../agents/helpers';

type TestUser = Awaited<ReturnType<typeof makeUser>>;

const receipts = (user: TestUser, runId: string) =>
  receiptsRoute(new Request(`http://localhost/api/v1/runs/${runId}/receipts`, { headers: user.auth }), { params: Promise.resolve({ id: runId }) });

describe('GET /api/v1/runs/:id/receipts', () => {
  it('answers the owner with the run’s ledger in order', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'] });
    const run = await send(ann.id, conversation.id, '/call calculator {"expression":"6*7"}\n/call current_time {}\n/reply done');
    const res = await receipts(ann, run.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect((await res.json()) as ApiRunReceipts).toEqual({
      runId: run.id,
      receipts: [
        { id: 'r1', tool: 'calculator', status: 'ok' },
        { id: 'r2', tool: 'current_time', status: 'ok' },
      ],
    });
  });

  it('another owner gets the same 404 as a run that does not exist, and nothing changes; no session → 401', async () => {
    const ann = await makeUser('ann');
    const bob = await makeUser('bob');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'] });
    const run = await send(ann.id, conversation.id, '/call calculator {"expression":"1+1"}\n/reply done');
    // The finished run's thread is trimmed in a macrotask of its own (housekeeping): done now, so the fingerprint
    // compares only what bob's requests could change.
    await maintainSettledThread(conversation.id);
    const before = await databaseFingerprint();
    // What must not happen: bob learning that ann's run exists or what it called.
    const foreign = await receipts(bob, run.id);
    const missing = await receipts(bob, crypto.randomUUID());
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(await foreign.json()).toEqual(await missing.json());
    expect(await databaseFingerprint()).toEqual(before);
    const anonymous = await receiptsRoute(new Request(`http://localhost/api/v1/runs/${run.id}/receipts`), { params: Promise.resolve({ id: run.id }) });
    expect(anonymous.status).toBe(401);
  });
});
