import 'server-only';
import type { SendRequestInput } from '@/lib/schemas/team';
import { writeTx } from '@/server/db';
import { attachedFiles, recordAttachments } from '@/server/files/attachments';
import { resolveScope } from '@/server/files/scope';
import { AppError, validationError } from '@/server/http/errors';
import { wakeScheduler } from '@/server/scheduler/signal';
import { queueRequest } from './queue';
import { touchTeam } from './revision';
import { requireTeam, teamMembers } from './teams';

export type SentJob = { id: string; memberId: string; status: string };

/**
 * The person sends one message to one or more members: one queued job per recipient, written with the
 * shared-record lines and the revision bump in one transaction. No agent work happens here.
 * Each job's key is `<draftKey>:<memberId>`, so a retried send returns the same jobs.
 */
export async function sendRequest(ownerId: string, teamId: string, input: SendRequestInput): Promise<{ jobs: SentJob[]; created: boolean }> {
  const result = await writeTx(async (tx) => {
    const team = await requireTeam(ownerId, teamId, tx);
    if (team.status !== 'ready') {
      throw new AppError(409, 'team_not_ready', 'The team is not ready; reconnect it from the Manage menu');
    }
    const members = await teamMembers(teamId, tx);
    const byId = new Map(members.map((m) => [m.id, m]));
    const unknown = input.memberIds.filter((id) => !byId.has(id));
    if (unknown.length) throw validationError({ memberIds: `Not a member of this team: ${unknown.join(', ')}` });
    const attached = input.attachments?.length ? await attachedFiles(await resolveScope(ownerId, { kind: 'team', id: teamId }), input.attachments, tx) : [];
    const createdIds: string[] = [];
    const jobs: SentJob[] = [];
    for (const memberId of input.memberIds) {
      const outcome = await queueRequest(tx, {
        teamId,
        ownerId,
        member: byId.get(memberId)!,
        text: input.text,
        requestKey: `${input.draftKey}:${memberId}`,
        sourceMemberId: null,
        sourceConversationId: null,
        senderLabel: 'You',
        parent: null,
      });
      if (outcome.created) createdIds.push(outcome.job.id);
      // Each member's job reads the same files; its admission puts the note in the member's request (execution.ts).
      if (outcome.created) await recordAttachments(tx, outcome.job.id, attached);
      jobs.push({ id: outcome.job.id, memberId, status: outcome.job.status });
    }
    if (createdIds.length) await touchTeam(tx, teamId, createdIds);
    return { jobs, created: createdIds.length > 0 };
  });
  if (result.created) wakeScheduler();
  return result;
}
