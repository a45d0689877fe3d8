import { describe, expect, it } from 'vitest';
import type { ConversationDetail } from '@/lib/types/conversation';
import type { BatchCreateInput } from '@/lib/schemas/batch';
import { GET as detailRoute } from '@/app/api/v1/conversations/[id]/route';
import * as cancelRoute from '@/app/api/v1/batches/[id]/cancel/route';
import { createConversation } from '@/server/agents/conversations';
import { createBatch } from '@/server/batches/store';
import { makeAgent } from '../agents/helpers';
import { call } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';
import { itemRows, withBatchScheduler } from './helpers';

withBatchScheduler();

/*
 * A cancelled batch item's run keeps its interrupt, as a cancelled team request's does (server/batches/waits.ts). Its
 * hidden conversation, read at GET /conversations/:id, says which of the two ended it: `batch` names the batch.
 */
describe('reading a cancelled batch item’s hidden conversation', () => {
  it('names the batch whose cancel ended the approval; a person’s own chat names none; another owner gets a 404', async () => {
    const ann = await makeUser('ann');
    const agent = await makeAgent(ann.id, { toolGroups: ['utility'], approvalTools: ['calculator'] });
    const body: BatchCreateInput = { target: { agentId: agent.id }, template: '/call calculator {"expression":"{{e}}"}', columns: ['e'], items: [{ e: '2*3' }], concurrency: 1, maxAttempts: 1 };
    const { batch } = await createBatch(ann.id, body, { origin: 'person' });
    const [item] = await until(
      async () => {
        const rows = await itemRows(batch.id);
        return rows[0]?.status === 'waiting' && rows;
      },
      15_000,
      'the item waiting for approval',
    );
    const cancelled = await call(cancelRoute.POST, { method: 'POST', headers: ann.auth, params: { id: batch.id } });
    expect(cancelled.status).toBe(200);

    const read = await call(detailRoute, { headers: ann.auth, params: { id: item!.conversationId! } });
    expect(read.status).toBe(200);
    const detail = read.body as ConversationDetail;
    expect(detail.run).toMatchObject({ id: item!.runId, status: 'cancelled', interrupt: { type: 'approval', tool: 'calculator' } });
    expect(detail.batch).toEqual({ id: batch.id });
    expect(detail.teamRequest).toBeNull();
    expect(detail.team).toBeNull();

    // A person's own chat is no batch's item.
    const own = await createConversation(ann.id, agent.id);
    expect((await call(detailRoute, { headers: ann.auth, params: { id: own.id } })).body).toMatchObject({ batch: null });

    const eve = await makeUser('eve');
    expect((await call(detailRoute, { headers: eve.auth, params: { id: item!.conversationId! } })).status).toBe(404);
  });
});
