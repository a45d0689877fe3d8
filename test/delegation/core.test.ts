import { describe, expect, it } from 'vitest';
import type { DelegationResult } from '@/lib/types/delegation';
import { readThread } from '@/server/agents/thread';
import { contentText } from '@/server/agents/messages';
import { conversationWith, send } from '../agents/helpers';
import { eventsOf, ofType } from '../observe/helpers';
import { makeUser } from '../support/users';
import { delegationsOf, runRow, taskCall, withDelegationScheduler } from './helpers';

withDelegationScheduler();

describe('the task tool: a child run on a hidden conversation, its result back to the parent', () => {
  it('runs a spawned child through the scheduler and returns its answer as the task result', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { name: 'Lead' });
    const run = await send(alice.id, conversation.id, taskCall({ description: 'Say hi', prompt: '/reply hi from the child' }));
    expect(run.status).toBe('success');
    const [row] = await delegationsOf(run.id);
    expect(row).toMatchObject({ status: 'completed', provider: 'spawn', depth: 1 });
    const child = await runRow(row!.childRunId!);
    expect(child).toMatchObject({ parentRunId: run.id, parentToolCallId: row!.parentToolCallId, depth: 1, status: 'success' });
    const result = row!.result as DelegationResult;
    expect(result).toMatchObject({ status: 'completed', output: 'hi from the child', childRunId: child.id, model: 'scripted' });
    expect(result.usage.modelCalls).toBe(1);
    const { messages } = await readThread(conversation.id);
    const tool = messages.find((m) => m.getType() === 'tool')!;
    expect(JSON.parse(contentText(tool.content))).toMatchObject({ status: 'completed', output: 'hi from the child' });
    // The parent's step.tool event names the child, so its steps can be shown nested under the call.
    expect(ofType(await eventsOf(run.id), 'step.tool')).toEqual([expect.objectContaining({ tool: 'task', toolCallId: row!.parentToolCallId, delegationId: row!.id, childRunId: child.id })]);
    expect(ofType(await eventsOf(child.id), 'step.assistant')).toEqual([expect.objectContaining({ text: 'hi from the child' })]);
  });

  it('the result carries the child’s receipts and its answer’s citations checked against them', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id);
    const run = await send(alice.id, conversation.id, taskCall({ description: 'Sum', prompt: '/call calculator {"expression":"1+1"}\n/cite' }));
    const result = (await delegationsOf(run.id))[0]!.result as DelegationResult;
    expect(result.receipts).toEqual([{ id: 'r1', tool: 'calculator', status: 'ok' }]);
    expect(result.citations).toEqual([{ id: 'r1', tool: 'calculator', resolved: true }]);
    expect(result.usage.modelCalls).toBe(2);
  });
});
