import { describe, expect, it } from 'vitest';
import { provenanceLabel, showsProvenance } from '@/components/runs/provenance-text';
import { getState } from '@/server/agents/runs';
import { conversationWith, send } from '../agents/helpers';
import { delegationsOf, taskCall, withDelegationScheduler } from '../delegation/helpers';
import { makeUser } from '../support/users';

withDelegationScheduler();

describe('provenance of a delegated task, through a real task call', () => {
  it('the child’s task message is the parent agent’s, names it, and is labelled so — also when the person’s turn made it trusted', async () => {
    const ann = await makeUser('ann');
    const { agent, conversation } = await conversationWith(ann.id, { name: 'Lead' });
    // The person's own turn: the child may act on the task's directives (ADR 024), but an agent still wrote it.
    const run = await send(ann.id, conversation.id, taskCall({ description: 'check', prompt: '/reply checked' }));
    expect(run.status).toBe('success');
    const [row] = await delegationsOf(run.id);
    expect(row).toMatchObject({ status: 'completed' });

    const { messages } = await getState(ann.id, row!.childConversationId!);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const [task, answer] = messages;
    expect(task).toMatchObject({ text: '/reply checked', provenance: { contentKind: 'delegated_task', producer: { type: 'agent' }, about: agent.name } });
    expect(answer).toMatchObject({ text: 'checked', provenance: { contentKind: 'assistant', producer: { type: 'agent' } } });
    expect(showsProvenance(task!.provenance)).toBe(true);
    expect(provenanceLabel(task!.provenance!)).toBe(`agent · task delegated by ${agent.name}`);
    // Never the person's words, whatever the trust decision says.
    expect(provenanceLabel(task!.provenance!).startsWith('You')).toBe(false);
  });
});
