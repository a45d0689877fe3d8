import { ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { receiptsOf } from '@/server/agents/receipts/ledger';
import { receiptStampOf } from '@/server/agents/receipts/stamp';
import { readThread } from '@/server/agents/thread';
import { makeUser } from '../support/users';
import { conversationWith, send } from '../agents/helpers';
import { eventsOf, ofType } from '../observe/helpers';

const toolMessages = async (conversationId: string) => (await readThread(conversationId)).messages.filter((m): m is ToolMessage => m.getType() === 'tool');

describe('receipts ledger through real graphs (scripted model)', () => {
  it('numbers a run’s tool results r1, r2, r3 across turns: on the step.tool events, on the messages, in receiptsOf', async () => {
    const ann = await makeUser('ann');
    const { conversation } = conversationWith(ann.id, { toolGroups: ['utility'] });
    const run = await send(ann.id, conversation.id, ['/call calculator {"expression":"6*7"}', '/call calculator {"expression":"1/0"}', '/call current_time {}', '/reply done'].join('\n'));
    expect(run.status).toBe('success');

    const steps = ofType(eventsOf(run.id), 'step.tool');
    expect(steps.map((s) => [s.receipt, s.tool])).toEqual([
      ['r1', 'calculator'],
      ['r2', 'calculator'],
      ['r3', 'current_time'],
    ]);
    const messages = await toolMessages(conversation.id);
    expect(messages.map((m) => receiptStampOf(m))).toEqual(['r1', 'r2', 'r3'].map((id) => ({ id, runId: run.id })));
    expect(receiptsOf(run.id)).toEqual([
      { id: 'r1', tool: 'calculator', status: 'ok' },
      { id: 'r2', tool: 'calculator', status: steps[1]!.status === 'error' ? 'error' : 'ok' },
      { id: 'r3', tool: 'current_time', status: 'ok' },
    ]);
  });

  it('each run starts its own ledger at r1; the earlier run’s ledger is unchanged; a run without tools has none', async () => {
    const ann = await makeUser('ann');
    const { conversation } = conversationWith(ann.id, { toolGroups: ['utility'] });
    const first = await send(ann.id, conversation.id, '/call calculator {"expression":"1+1"}\n/call calculator {"expression":"2+2"}\n/reply a');
    const second = await send(ann.id, conversation.id, '/call current_time {}\n/reply b');
    const third = await send(ann.id, conversation.id, '/reply nothing to do');
    expect(receiptsOf(first.id).map((r) => `${r.id} ${r.tool}`)).toEqual(['r1 calculator', 'r2 calculator']);
    expect(receiptsOf(second.id).map((r) => `${r.id} ${r.tool}`)).toEqual(['r1 current_time']);
    expect(receiptsOf(third.id)).toEqual([]);
    expect(receiptsOf('no-such-run')).toEqual([]);
  });
});
