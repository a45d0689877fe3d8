import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '@/server/db';
import { accountTokensToday } from '@/server/budgets/daily-cap';
import { teamTokensUsed, teamsTokensUsed } from '@/server/budgets/team-usage';
import { sendRequest } from '@/server/teams/requests';
import { getTeam, listTeams } from '@/server/teams/teams';
import { conversationWith, send } from '../agents/helpers';
import { settled, withScheduler } from '../support/scheduler';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { seedRun } from './support';

withScheduler();

const runOf = (id: string) => getDb().select().from(schema.runs).where(eq(schema.runs.id, id)).get()!;

describe('team usage', () => {
  it('a team job run carries its team id and its recorded tokens are the team’s usage; a direct chat run has no team', async () => {
    const alice = await makeUser('alice');
    const { team } = makeTeam(alice.id);
    // Read (and memoized) before anything ran: a finished run must make the next read see its tokens.
    expect(teamTokensUsed(getDb(), team.id)).toBe(0);
    expect(accountTokensToday(getDb(), alice.id)).toBe(0);
    const jobId = sendRequest(alice.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply counted', draftKey: 'k1' }).jobs[0]!.id;
    const job = await settled(jobId);
    expect(job.status).toBe('completed');
    const run = runOf(job.runId!);
    expect(run.teamId).toBe(team.id);
    // The scripted model reports usage for every call, so a real run spends something.
    expect(run.inputTokens + run.outputTokens).toBeGreaterThan(0);
    expect(teamTokensUsed(getDb(), team.id)).toBe(run.inputTokens + run.outputTokens);
    expect(accountTokensToday(getDb(), alice.id)).toBe(run.inputTokens + run.outputTokens);
    expect(getTeam(alice.id, team.id)).toMatchObject({ tokensUsed: run.inputTokens + run.outputTokens, tokenBudget: null, admissionHeld: null });

    const { conversation } = conversationWith(alice.id);
    const direct = await send(alice.id, conversation.id, '/reply alone');
    expect(runOf(direct.id).teamId).toBeNull();
    // What must not happen: a person's own chat counted against a team (it counts toward the account's day).
    expect(teamTokensUsed(getDb(), team.id)).toBe(run.inputTokens + run.outputTokens);
    const chat = runOf(direct.id);
    expect(chat.inputTokens + chat.outputTokens).toBeGreaterThan(0);
    expect(accountTokensToday(getDb(), alice.id)).toBe(run.inputTokens + run.outputTokens + chat.inputTokens + chat.outputTokens);
  });

  it('sums every run of the team, delegated children included, and never another team’s runs', async () => {
    const alice = await makeUser('alice');
    const { team } = makeTeam(alice.id);
    const { team: other } = makeTeam(alice.id);
    const conversationId = team.members[0]!.conversationId!;
    const parent = seedRun({ ownerId: alice.id, conversationId, tokens: 1_200, teamId: team.id });
    // A child run (a `task` helper) copies its parent's team id: its tokens are the team's too.
    seedRun({ ownerId: alice.id, conversationId, tokens: 345, teamId: team.id, parentRunId: parent });
    seedRun({ ownerId: alice.id, conversationId: other.members[0]!.conversationId!, tokens: 9_999, teamId: other.id });
    seedRun({ ownerId: alice.id, conversationId, tokens: 50_000, teamId: null });

    expect(teamTokensUsed(getDb(), team.id)).toBe(1_545);
    expect(teamTokensUsed(getDb(), other.id)).toBe(9_999);
    const unknown = crypto.randomUUID();
    expect(Object.fromEntries(teamsTokensUsed(getDb(), [team.id, other.id, unknown]))).toEqual({ [team.id]: 1_545, [other.id]: 9_999, [unknown]: 0 });
    const listed = Object.fromEntries(listTeams(alice.id).map((t) => [t.id, t.tokensUsed]));
    expect(listed).toEqual({ [team.id]: 1_545, [other.id]: 9_999 });
  });

  it('an account’s usage today is its runs since UTC midnight, every kind, and no other account’s', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { team } = makeTeam(alice.id);
    const { conversation } = conversationWith(alice.id);
    const { conversation: bobs } = conversationWith(bob.id);
    const midnight = Date.UTC(2026, 11, 1);
    seedRun({ ownerId: alice.id, conversationId: conversation.id, tokens: 700, createdAt: midnight - 1 }); // yesterday
    seedRun({ ownerId: alice.id, conversationId: conversation.id, tokens: 100, createdAt: midnight });
    seedRun({ ownerId: alice.id, conversationId: team.members[0]!.conversationId!, tokens: 20, teamId: team.id, createdAt: midnight + 3_600_000 });
    seedRun({ ownerId: bob.id, conversationId: bobs.id, tokens: 5_000, createdAt: midnight + 1 });

    expect(accountTokensToday(getDb(), alice.id, midnight - 1)).toBe(700);
    expect(accountTokensToday(getDb(), alice.id, midnight)).toBe(120);
    expect(accountTokensToday(getDb(), alice.id, midnight + 86_400_000 - 1)).toBe(120);
    expect(accountTokensToday(getDb(), alice.id, midnight + 86_400_000)).toBe(0);
    expect(accountTokensToday(getDb(), bob.id, midnight)).toBe(5_000);
  });
});
