import 'server-only';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { LIMITS } from '@/lib/limits';
import { acceptanceCriteriaSchema } from '@/lib/schemas/acceptance-criteria';
import { taskText } from '@/lib/schemas/team';
import type { RunContext } from '@/server/agents/run-types';
import { writeTx } from '@/server/db';
import { AppError } from '@/server/http/errors';
import { wakeScheduler } from '@/server/scheduler/signal';
import { buildSharedContext } from '../context';
import { neutralizedJson } from '@/server/trust/neutralize-tags';
import { queueRequest } from '../queue';
import { touchTeam } from '../revision';
import { teamMembers } from '../teams';
import { TeamToolError, executingJob, resolveCaller } from './caller';

const sendMemberSchema = z.object({
  member: z.string().min(1).max(200).describe('The member to ask: its id or its name (case-insensitive)'),
  text: z.string().min(1).describe('What you need from that member (at most 4,000 characters)'),
  request_id: z.string().min(1).max(200).describe('Your own id for this request; reusing it returns the same request instead of a new one'),
  acceptance_criteria: z
    .array(z.string())
    .optional()
    .describe(`Optional checks the result must satisfy (at most ${LIMITS.delegation.acceptanceCriteria.maxItems} items of at most ${LIMITS.delegation.acceptanceCriteria.maxChars} characters); the teammate sees them with the request`),
});

/**
 * `send_member`: queue a request to a teammate and return at once ({ id, status: "queued" }). The result comes
 * back to this conversation later as a receipt; members never block or poll each other.
 */
export async function sendMember(config: Parameters<typeof resolveCaller>[0], args: z.infer<typeof sendMemberSchema>) {
  const caller = await resolveCaller(config);
  const text = taskText.safeParse(args.text);
  if (!text.success) throw new TeamToolError(`text: ${text.error.issues[0]?.message ?? 'invalid'}`);
  const criteria = acceptanceCriteriaSchema.safeParse(args.acceptance_criteria ?? []);
  if (!criteria.success) throw new TeamToolError(fieldError('acceptance_criteria', criteria.error.issues[0]));
  const outcome = await writeTx(async (tx) => {
    const members = await teamMembers(caller.team.id, tx);
    const wanted = args.member.trim().toLowerCase();
    const target = members.find((m) => m.id === args.member) ?? members.find((m) => m.name.toLowerCase() === wanted);
    if (!target) throw new TeamToolError(`No member "${args.member}". Members: ${members.map((m) => m.name).join(', ')}`);
    if (target.id === caller.member.id) throw new TeamToolError('You cannot send a request to yourself');
    try {
      const queued = await queueRequest(tx, {
        teamId: caller.team.id,
        ownerId: caller.ownerId,
        member: target,
        text: text.data,
        requestKey: `tool:${caller.conversationId}:${args.request_id}`,
        sourceMemberId: caller.member.id,
        sourceConversationId: null,
        senderLabel: caller.member.name,
        parent: await executingJob(caller.conversationId, tx),
        acceptanceCriteria: criteria.data,
      });
      if (queued.created) await touchTeam(tx, caller.team.id, [queued.job.id]);
      return queued;
    } catch (err) {
      if (err instanceof AppError) throw new TeamToolError(err.message);
      throw err;
    }
  });
  if (outcome.created) wakeScheduler();
  return { id: outcome.job.id, status: outcome.job.status, member: args.member };
}

/** `acceptance_criteria.3: Must be at most 500 characters (now 501)` — the field and item the model must fix. */
function fieldError(field: string, issue: { path: PropertyKey[]; message: string } | undefined): string {
  const at = issue?.path.length ? `${field}.${issue.path.map(String).join('.')}` : field;
  return `${at}: ${issue?.message ?? 'invalid'}`;
}

export function handoffTools(_context: RunContext) {
  const send = tool(async (args, config) => neutralizedJson(await sendMember(config, args)), {
    name: 'send_member',
    description:
      'Ask a teammate for work. Returns at once with the queued request id; the teammate’s result is returned to you automatically in a later turn. Do not wait or poll.',
    schema: sendMemberSchema,
  });
  const readContext = tool(
    async (_args, config) => {
      const caller = await resolveCaller(config);
      return neutralizedJson(await buildSharedContext(caller.team.id));
    },
    {
      name: 'read_team_context',
      description: 'Read the team’s shared context: goal, roster, active public state and recent shared messages.',
      schema: z.object({}),
    },
  );
  return [send, readContext];
}
