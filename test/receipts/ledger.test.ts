import crypto from 'node:crypto';
import { ToolMessage } from '@langchain/core/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { resume, start } from '@/server/agents/runs';
import { startProviderStub } from '../observe/provider-stub';
import { receiptsOf } from '@/server/agents/receipts/ledger';
import { receiptStampOf } from '@/server/agents/receipts/stamp';
import { readThread } from '@/server/agents/thread';
import { makeUser } from '../support/users';
import { conversationWith, finished, send } from '../agents/helpers';
import { eventsOf, ofType } from '../observe/helpers';

const toolMessages = async (conversationId: string) => (await readThread(conversationId)).messages.filter((m): m is ToolMessage => m.getType() === 'tool');

describe('receipts ledger through real graphs (scripted model)', () => {
  it('numbers a run’s tool results r1, r2, r3 across turns: on the step.tool events, on the messages, in receiptsOf', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'] });
    const run = await send(ann.id, conversation.id, ['/call calculator {"expression":"6*7"}', '/call calculator {"expression":"1/0"}', '/call current_time {}', '/reply done'].join('\n'));
    expect(run.status).toBe('success');

    const steps = ofType(await eventsOf(run.id), 'step.tool');
    expect(steps.map((s) => [s.receipt, s.tool, s.status])).toEqual([
      ['r1', 'calculator', 'success'],
      ['r2', 'calculator', 'error'],
      ['r3', 'current_time', 'success'],
    ]);
    const messages = await toolMessages(conversation.id);
    expect(messages.map((m) => receiptStampOf(m))).toEqual(['r1', 'r2', 'r3'].map((id) => ({ id, runId: run.id })));
    expect(await receiptsOf(run.id)).toEqual([
      { id: 'r1', tool: 'calculator', status: 'ok' },
      // Division by zero: the tool threw, the call still happened — an error receipt.
      { id: 'r2', tool: 'calculator', status: 'error' },
      { id: 'r3', tool: 'current_time', status: 'ok' },
    ]);
  });

  it('each run starts its own ledger at r1; the earlier run’s ledger is unchanged; a run without tools has none', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'] });
    const first = await send(ann.id, conversation.id, '/call calculator {"expression":"1+1"}\n/call calculator {"expression":"2+2"}\n/reply a');
    const second = await send(ann.id, conversation.id, '/call current_time {}\n/reply b');
    const third = await send(ann.id, conversation.id, '/reply nothing to do');
    expect((await receiptsOf(first.id)).map((r) => `${r.id} ${r.tool}`)).toEqual(['r1 calculator', 'r2 calculator']);
    expect((await receiptsOf(second.id)).map((r) => `${r.id} ${r.tool}`)).toEqual(['r1 current_time']);
    expect(await receiptsOf(third.id)).toEqual([]);
    expect(await receiptsOf('no-such-run')).toEqual([]);
  });
});

describe('a turn with several tool calls (a real provider path against a local stub)', () => {
  const saved = { ...process.env };
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    process.env = { ...saved };
    await close?.();
  });

  it('numbers the results in the order the calls were asked, then continues on the next turn', { timeout: 40_000 }, async () => {
    const stub = await startProviderStub([
      {
        toolCalls: [
          { name: 'calculator', arguments: '{"expression":"6*7"}' },
          { name: 'current_time', arguments: '{}' },
        ],
        finish: 'tool_calls',
      },
      { toolCalls: [{ name: 'calculator', arguments: '{"expression":"1+1"}' }], finish: 'tool_calls' },
      { text: 'Done [r1 calculator] [r3 calculator]', finish: 'stop' },
    ]);
    close = stub.close;
    process.env.OPENAI_API_KEY = 'sk-test-stub';
    process.env.OPENAI_BASE_URL = stub.baseURL;
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { model: 'openai:gpt-4.1-mini', toolGroups: ['utility'] });
    const { run } = await start(ann.id, conversation.id, { text: 'Three things' }, { idempotencyKey: crypto.randomUUID() });
    expect((await finished(run.id, 30_000)).status).toBe('success');
    const messages = await toolMessages(conversation.id);
    expect(messages.map((m) => [receiptStampOf(m)?.id, m.name])).toEqual([
      ['r1', 'calculator'],
      ['r2', 'current_time'],
      ['r3', 'calculator'],
    ]);
    expect((await receiptsOf(run.id)).map((r) => `${r.id} ${r.tool}`)).toEqual(['r1 calculator', 'r2 current_time', 'r3 calculator']);
  });
});

describe('what the model sees, and declined calls', () => {
  it('the model receives each of this run’s results with its label and can cite them (/cite); an earlier run’s are not citable', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'] });
    const first = await send(ann.id, conversation.id, '/call calculator {"expression":"6*7"}\n/call current_time {}\n/cite\n/reply Done');
    const answer = async () => {
      const { messages } = await readThread(conversation.id);
      return messages.at(-1)!.content;
    };
    expect(first.status).toBe('success');
    expect(await answer()).toBe('Done\nReceipts: [r1 calculator] [r2 current_time]');
    // The thread keeps the tool's own text: labels exist only in what the model receives.
    expect((await toolMessages(conversation.id)).map((m) => m.content)).toEqual(['42', expect.not.stringMatching(/^\[r/)]);

    // A new run sees the earlier results marked as such, not as receipts it could cite.
    await send(ann.id, conversation.id, '/cite\n/reply Nothing new');
    expect(await answer()).toBe('Nothing new\nReceipts: none');
    const third = await send(ann.id, conversation.id, '/call calculator {"expression":"2+2"}\n/cite');
    expect(await answer()).toMatch(/^Agent .*: done\n\[calculator\] 4\nReceipts: \[r1 calculator\]$/);
    expect((await receiptsOf(third.id)).map((r) => r.id)).toEqual(['r1']);
  });

  it('a declined call gets a receipt with status error (the ledger says the call did not succeed)', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'], approvalTools: ['calculator'] });
    await send(ann.id, conversation.id, '/call calculator {"expression":"2+2"}\n/reply fine');
    const { run } = await resume(ann.id, conversation.id, { approved: false, note: 'no' }, { idempotencyKey: crypto.randomUUID() });
    expect((await finished(run.id)).status).toBe('success');
    expect(await receiptsOf(run.id)).toEqual([{ id: 'r1', tool: 'calculator', status: 'error' }]);
    expect(ofType(await eventsOf(run.id), 'step.tool')[0]).toMatchObject({ receipt: 'r1', status: 'error', durationMs: 0 });
  });
});
