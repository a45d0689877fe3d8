import 'server-only';
import { and, eq, inArray } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import type { TeamSettingsData } from '@/lib/schemas/team-settings';
import type { ApiTeam } from '@/lib/types/team';
import { schema, writeTx, type Db } from '@/server/db';
import { validationError } from '@/server/http/errors';
import { wakeScheduler } from '@/server/scheduler/signal';
import { touchTeam } from './revision';
import { assertTeamNameFree } from './team-name';
import { stateContextBytes } from './state';
import { getTeam, requireTeam, teamMembers } from './teams';

const fmt = (n: number) => n.toLocaleString('en-US');

/** The title creation gives a member's conversation; a rename moves only titles that still read this way. */
export const memberConversationTitle = (teamName: string, memberName: string) => `${teamName} · ${memberName}`;

/**
 * Rename the team, edit its goal and/or set its token budget, in one transaction that moves the team's revision
 * (open workspaces hear of it). The goal is read when a request is admitted (execution.ts freezes the shared
 * context into the job's input), so queued requests see the new goal and admitted ones keep the one they had.
 * A goal that would push the shared context (goal, roster, active state) past its byte budget is refused as a
 * goal field error, the same bound public-state writes keep; nothing changes.
 */
export async function updateTeamSettings(ownerId: string, teamId: string, input: TeamSettingsData): Promise<ApiTeam> {
  await writeTx(async (tx) => {
    const team = await requireTeam(ownerId, teamId, tx);
    const name = input.name?.trim();
    const goal = input.goal?.trim();
    if (name !== undefined) await assertTeamNameFree(ownerId, name, teamId);
    await tx
      .update(schema.teams)
      .set({
        ...(name !== undefined ? { name } : {}),
        ...(goal !== undefined ? { goal } : {}),
        ...budgetChanges(input),
      })
      .where(eq(schema.teams.id, teamId));
    if (goal !== undefined) {
      const bytes = await stateContextBytes(teamId, tx);
      if (bytes > LIMITS.sharedContext.maxBytes) {
        throw validationError({
          goal: `With this goal the team's shared context (goal, roster and active state) would take ${fmt(bytes)} bytes, over its ${fmt(LIMITS.sharedContext.maxBytes)}-byte budget; shorten the goal or archive state entries`,
        });
      }
    }
    if (name !== undefined && name !== team.name) await renameMemberConversations(tx, teamId, team.name, name);
    await touchTeam(tx, teamId, []);
  });
  // A raised (or removed) budget re-admits held work at the scheduler's next pass.
  if (input.tokenBudget !== undefined || input.moneyBudget !== undefined) wakeScheduler();
  return getTeam(ownerId, teamId);
}

/**
 * A team has a budget of one kind at most (ADR 048): setting one kind clears the other; null clears only its own
 * kind. (The schema refuses both set at once.)
 */
function budgetChanges(input: TeamSettingsData): { tokenBudget?: number | null; moneyBudgetNanos?: number | null } {
  const out: { tokenBudget?: number | null; moneyBudgetNanos?: number | null } = {};
  if (input.tokenBudget !== undefined) out.tokenBudget = input.tokenBudget;
  if (input.moneyBudget !== undefined) out.moneyBudgetNanos = input.moneyBudget;
  if (input.tokenBudget != null) out.moneyBudgetNanos = null;
  if (input.moneyBudget != null) out.tokenBudget = null;
  return out;
}

/** Member conversations still titled after the old name follow the rename; a title that differs is left alone. */
async function renameMemberConversations(tx: Db, teamId: string, oldName: string, newName: string): Promise<void> {
  const members = (await teamMembers(teamId, tx)).filter((m) => m.conversationId);
  if (!members.length) return;
  const conversations = await tx
    .select({ id: schema.conversations.id, title: schema.conversations.title })
    .from(schema.conversations)
    .where(inArray(schema.conversations.id, members.map((m) => m.conversationId!)));
  const titles = new Map(conversations.map((c) => [c.id, c.title]));
  for (const m of members) {
    if (titles.get(m.conversationId!) !== memberConversationTitle(oldName, m.name)) continue;
    await tx
      .update(schema.conversations)
      .set({ title: memberConversationTitle(newName, m.name) })
      .where(and(eq(schema.conversations.id, m.conversationId!), eq(schema.conversations.title, memberConversationTitle(oldName, m.name))));
  }
}
