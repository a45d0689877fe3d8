import crypto from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import * as conversationRoute from '@/app/api/v1/conversations/[id]/route';
import * as messagesRoute from '@/app/api/v1/conversations/[id]/messages/route';
import * as mentionsRoute from '@/app/api/v1/conversations/[id]/mentions/route';
import type { Message } from '@/lib/types/conversation';
import { createConversation, getState } from '@/server/agents/runs';
import { getDb, schema } from '@/server/db';
import { respondToJob } from '@/server/teams/answers';
import { sendRequest } from '@/server/teams/requests';
import { finished } from '../agents/helpers';
import { settled, withScheduler } from '../support/scheduler';
import { scriptAgent } from '../support/scripts';
import { call, makeAgents, makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';

withScheduler();

const directive = (tool: string, args: object) => `/call ${tool} ${JSON.stringify(args)}`;
const messagesOf = async (ownerId: string, conversationId: string) => (await getState(ownerId, conversationId)).messages;
const humans = (messages: Message[]) => messages.filter((m) => m.role === 'user');

describe('provenance of every message the framework injects, through real flows', () => {
  it("a person's chat: person_message by the person; the reply by the agent; a tool result by the framework (GET /conversations/:id)", async () => {
    const ann = await makeUser('ann');
    const [agent] = await makeAgents(ann.id, [`Calc-${crypto.randomUUID().slice(0, 4)}`], { toolGroups: ['utility'] });
    const conversation = await createConversation(ann.id, agent!.id);
    const sent = await call(messagesRoute.POST, { method: 'POST', headers: ann.auth, body: { text: directive('calculator', { expression: '6*7' }) }, params: { id: conversation.id } });
    expect(sent.status).toBe(202);
    await finished((sent.body.run as { id: string }).id);
    const state = await call(conversationRoute.GET, { headers: ann.auth, params: { id: conversation.id } });
    const messages = state.body.messages as Message[];
    expect(messages.map((m) => [m.role, m.provenance])).toEqual([
      ['user', { contentKind: 'person_message', producer: { type: 'person' } }],
      ['assistant', { contentKind: 'assistant', producer: { type: 'agent' } }],
      ['tool', { contentKind: 'tool_result', producer: { type: 'framework' } }],
      ['assistant', { contentKind: 'assistant', producer: { type: 'agent' } }],
    ]);
    // Provenance is its own field; the trust decision (author) and task text never show in meta.
    expect(messages[0]!.meta).not.toHaveProperty('provenance');
    expect(messages[0]!.meta).not.toHaveProperty('author');
  });

  it('a team request from the person, one from a member (send_member), and the receipt returned to the sender', async () => {
    const ann = await makeUser('ann');
    const { team, agents } = await makeTeam(ann.id, ['Research', 'Review']);
    const [research, review] = team.members;
    await scriptAgent(agents[1]!.id, '/reply Looks good');
    const root = (await sendRequest(ann.id, team.id, {
      memberIds: [research!.id],
      text: directive('send_member', { member: review!.name, text: 'Please review', request_id: 'r1' }),
      draftKey: 'd',
    })).jobs[0]!;
    await settled(root.id);
    // The receipt is its own job on Research's conversation; wait until it ran.
    const researchMessages = await until(async () => {
      const list = await messagesOf(ann.id, research!.conversationId!);
      return humans(list).length === 2 && list.at(-1)!.role === 'assistant' && list;
    }, 10_000, 'receipt in the requester conversation');
    const [request, receipt] = humans(researchMessages);
    expect(request!.provenance).toEqual({ contentKind: 'team_request', producer: { type: 'person' } });
    expect(receipt!.provenance).toEqual({ contentKind: 'receipt', producer: { type: 'framework' }, about: review!.name });

    const reviewMessages = await messagesOf(ann.id, review!.conversationId!);
    const [peerRequest] = humans(reviewMessages);
    expect(peerRequest!.provenance).toEqual({ contentKind: 'team_request', producer: { type: 'member', memberId: research!.id, name: research!.name } });
    // The shared context has no message of its own: it is framed inside the request message (one label covers both).
    const { threadMessages } = await getState(ann.id, review!.conversationId!);
    expect(String(threadMessages[0]!.content)).toContain('<ensemble-context>');
  });

  it('a clarification answer is the person’s', async () => {
    const ann = await makeUser('ann');
    const { team } = await makeTeam(ann.id);
    const member = team.members[0]!;
    const j = (await sendRequest(ann.id, team.id, { memberIds: [member.id], text: '/ask Which format?', draftKey: 'q' })).jobs[0]!;
    expect((await settled(j.id)).status).toBe('waiting_input');
    await respondToJob(ann.id, team.id, j.id, { answer: 'Two pages', answerKey: 'a1' });
    await until(async () => (await settled(j.id)).status === 'completed', 10_000, 'answered job');
    const [request, answer] = humans(await messagesOf(ann.id, member.conversationId!));
    expect(request!.provenance).toEqual({ contentKind: 'team_request', producer: { type: 'person' } });
    expect(answer).toMatchObject({ text: 'Two pages', provenance: { contentKind: 'clarification_answer', producer: { type: 'person' } } });
  });

  it('an @mention: the person’s message (mention) and the framework’s note', async () => {
    const ann = await makeUser('ann');
    const { team } = await makeTeam(ann.id, ['Research']);
    const [solo] = await makeAgents(ann.id, [`Solo-${crypto.randomUUID().slice(0, 4)}`]);
    const conversation = await createConversation(ann.id, solo!.id);
    const sent = await call(mentionsRoute.POST, {
      method: 'POST',
      headers: ann.auth,
      body: { memberIds: [team.members[0]!.id], text: 'look into it', messageKey: 'm1' },
      params: { id: conversation.id },
    });
    expect(sent.status).toBe(201);
    const [mention, note] = await messagesOf(ann.id, conversation.id);
    expect(mention).toMatchObject({ role: 'user', text: 'look into it', provenance: { contentKind: 'mention', producer: { type: 'person' } } });
    expect(note).toMatchObject({ role: 'assistant', provenance: { contentKind: 'note', producer: { type: 'framework' } } });
    // The receipt of the mentioned member's result arrives later, labelled as the framework's.
    const receipt = await until(async () => humans(await messagesOf(ann.id, conversation.id))[1], 10_000, 'receipt in the mentioning conversation');
    expect(receipt.provenance).toEqual({ contentKind: 'receipt', producer: { type: 'framework' }, about: team.members[0]!.name });
    // The receipt's job (its run answers here) settles before the file's database is closed and dropped.
    const [receiptJob] = await getDb().select().from(schema.jobs).where(and(eq(schema.jobs.conversationId, conversation.id), eq(schema.jobs.kind, 'receipt')));
    await settled(receiptJob!.id);
  });
});
