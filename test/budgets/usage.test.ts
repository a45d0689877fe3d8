import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '@/server/db';
import { teamTokensUsed, teamsTokensUsed } from '@/server/budgets/team-totals';
import { cachedDayUsage, cachedTeamTotals, usageChanged } from '@/server/budgets/usage-cache';
import { accountTokensToday, utcDayStart } from '@/server/budgets/daily-cap';
import { sendRequest } from '@/server/teams/requests';
import { getTeam, listTeams } from '@/server/teams/teams';
import { conversationWith, send } from '../agents/helpers';
import { settled, withScheduler } from '../support/scheduler';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { seedRun } from './support';

withScheduler();

const runOf = async (id: string) => (await getDb().select().from(schema.runs).where(eq(schema.runs.id, id)))[0]!;

describe('team usage', () => {
  it('a team job run carries its team id and its recorded tokens are the team’s usage; a direct chat run has no team', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    // Read (and memoized) before anything ran: a finished run must make the next read see its tokens.
    expect(await teamTokensUsed(team.id)).toBe(0);
    expect(await accountTokensToday(alice.id)).toBe(0);
    const jobId = (await sendRequest(alice.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply counted', draftKey: 'k1' })).jobs[0]!.id;
    const job = await settled(jobId);
    expect(job.status).toBe('completed');
    const run = await runOf(job.runId!);
    expect(run.teamId).toBe(team.id);
    // The scripted model reports usage for every call, so a real run spends something.
    expect(run.inputTokens + run.outputTokens).toBeGreaterThan(0);
    expect(await teamTokensUsed(team.id)).toBe(run.inputTokens + run.outputTokens);
    expect(await accountTokensToday(alice.id)).toBe(run.inputTokens + run.outputTokens);
    expect(await getTeam(alice.id, team.id)).toMatchObject({ tokensUsed: run.inputTokens + run.outputTokens, tokenBudget: null, admissionHeld: null });

    const { conversation } = await conversationWith(alice.id);
    const direct = await send(alice.id, conversation.id, '/reply alone');
    expect((await runOf(direct.id)).teamId).toBeNull();
    // What must not happen: a person's own chat counted against a team (it counts toward the account's day).
    expect(await teamTokensUsed(team.id)).toBe(run.inputTokens + run.outputTokens);
    const chat = await runOf(direct.id);
    expect(chat.inputTokens + chat.outputTokens).toBeGreaterThan(0);
    expect(await accountTokensToday(alice.id)).toBe(run.inputTokens + run.outputTokens + chat.inputTokens + chat.outputTokens);
  });

  it('sums every run of the team, delegated children included, and never another team’s runs', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const { team: other } = await makeTeam(alice.id);
    const conversationId = team.members[0]!.conversationId!;
    const parent = await seedRun({ ownerId: alice.id, conversationId, tokens: 1_200, teamId: team.id });
    // A child run (a `task` helper) copies its parent's team id: its tokens are the team's too.
    await seedRun({ ownerId: alice.id, conversationId, tokens: 345, teamId: team.id, parentRunId: parent });
    await seedRun({ ownerId: alice.id, conversationId: other.members[0]!.conversationId!, tokens: 9_999, teamId: other.id });
    await seedRun({ ownerId: alice.id, conversationId, tokens: 50_000, teamId: null });

    expect(await teamTokensUsed(team.id)).toBe(1_545);
    expect(await teamTokensUsed(other.id)).toBe(9_999);
    const unknown = crypto.randomUUID();
    expect(Object.fromEntries(await teamsTokensUsed([team.id, other.id, unknown]))).toEqual({ [team.id]: 1_545, [other.id]: 9_999, [unknown]: 0 });
    const listed = Object.fromEntries((await listTeams(alice.id)).map((t) => [t.id, t.tokensUsed]));
    expect(listed).toEqual({ [team.id]: 1_545, [other.id]: 9_999 });
  });

  it('an account’s usage today is its runs since UTC midnight, every kind, and no other account’s', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { team } = await makeTeam(alice.id);
    const { conversation } = await conversationWith(alice.id);
    const { conversation: bobs } = await conversationWith(bob.id);
    const midnight = Date.UTC(2026, 11, 1);
    await seedRun({ ownerId: alice.id, conversationId: conversation.id, tokens: 700, createdAt: midnight - 1 }); // yesterday
    await seedRun({ ownerId: alice.id, conversationId: conversation.id, tokens: 100, createdAt: midnight });
    await seedRun({ ownerId: alice.id, conversationId: team.members[0]!.conversationId!, tokens: 20, teamId: team.id, createdAt: midnight + 3_600_000 });
    await seedRun({ ownerId: bob.id, conversationId: bobs.id, tokens: 5_000, createdAt: midnight + 1 });

    expect(await accountTokensToday(alice.id, midnight - 1)).toBe(700);
    expect(await accountTokensToday(alice.id, midnight)).toBe(120);
    expect(await accountTokensToday(alice.id, midnight + 86_400_000 - 1)).toBe(120);
    expect(await accountTokensToday(alice.id, midnight + 86_400_000)).toBe(0);
    expect(await accountTokensToday(bob.id, midnight)).toBe(5_000);
  });

  it('a sum read while a run’s totals change is not memoized (reads are asynchronous); the next read sees the change', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const conversationId = team.members[0]!.conversationId!;
    await seedRun({ ownerId: alice.id, conversationId, tokens: 100, teamId: team.id, createdAt: Date.now() });
    // Both reads begin, then a run's totals are written (what finishRun does) before they come back.
    const reading = Promise.all([teamsTokensUsed([team.id]), accountTokensToday(alice.id)]);
    usageChanged({ teamId: team.id, ownerId: alice.id });
    expect(await reading).toEqual([new Map([[team.id, 100]]), 100]);
    // What must not happen: the sum read before the change kept as the memo, hiding the change until the next run.
    expect(cachedTeamTotals(team.id)).toBeUndefined();
    expect(cachedDayUsage(alice.id, utcDayStart(Date.now()))).toBeUndefined();
    // A read with nothing changing meanwhile is memoized again.
    expect(await teamTokensUsed(team.id)).toBe(100);
    expect(cachedTeamTotals(team.id)?.tokens).toBe(100);
  });
});
