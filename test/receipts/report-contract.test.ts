import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { delegateTools } from '@/server/agents/delegation/task-tool';
import { systemPrompt } from '@/server/agents/graph';
import { promptOptionsFor, SELF_REPORT_NOTICE, VERIFIABLE_HANDLES } from '@/server/agents/receipts/report-contract';
import { makeAgent } from '../agents/helpers';
import { makeUser } from '../support/users';

const agent = { name: 'Calc', instructions: 'Be brief.' };
const base = { ownerId: 'o', conversationId: 'c', runId: 'r', agentId: 'a' };

describe('the report contract: verifiable handles for deliverables', () => {
  it('a delegated child and a team member are asked for handles a reader can check; a plain chat run is not', () => {
    const child = systemPrompt(agent, promptOptionsFor({ ...base, delegationId: 'd' }));
    const member = systemPrompt(agent, promptOptionsFor({ ...base, teamId: 't', jobId: 'j', memberId: 'm' }));
    for (const prompt of [child, member]) {
      expect(prompt).toContain(VERIFIABLE_HANDLES);
      expect(prompt).toMatch(/absolute file path, a URL, an ID, or an HTTP status/);
    }
    expect(systemPrompt(agent, promptOptionsFor(base))).not.toContain(VERIFIABLE_HANDLES);
  });
});

describe('the delegating model: results are self-reports', () => {
  it("the task tool's description says a result is the child's own report and a resolved citation only means the call happened", async () => {
    // What must not happen: the delegating model left to take a child's answer (or a resolved citation) as verified fact.
    const alice = await makeUser('alice');
    const lead = await makeAgent(alice.id, { name: 'Lead' });
    const [task] = await delegateTools({ ownerId: alice.id, conversationId: crypto.randomUUID(), runId: crypto.randomUUID(), agentId: lead.id });
    expect(task!.name).toBe('task');
    expect(task!.description).toContain(SELF_REPORT_NOTICE);
    expect(SELF_REPORT_NOTICE).toMatch(/own report, not verified fact/);
    expect(SELF_REPORT_NOTICE).toMatch(/resolved citation only means the cited tool call happened/);
  });
});
