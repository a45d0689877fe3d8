import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { ToolMessage } from '@langchain/core/messages';
import type { HistoryPage, ResultsPage, TeamResult } from '@/lib/types/team-history';
import { getDb, schema, writeTx } from '@/server/db';
import type { Job } from '@/server/db/schema';
import { startScheduler, stopScheduler } from '@/server/scheduler/runtime';
import { teamJobs } from '@/server/teams/scheduler-jobs';
import { sendRequest } from '@/server/teams/requests';
import { appendShared } from '@/server/teams/shared-record';
import { registerTeamTools } from '@/server/teams/tools/register';
import { NOT_A_MEMBER } from '@/server/teams/tools/caller';
import { createConversation, start, wait } from '@/server/agents/runs';
import { readThread } from '@/server/agents/thread';
import { makeUser } from '../support/users';
import { makeTeam } from '../support/teams';
import { until } from '../support/wait';

/*
 * Every call goes through the real path: a team request → the scheduler admits it → the member's graph runs the
 * scripted model, whose `/call` lines become tool calls that ToolNode dispatches.
 */

const jobRow = async (id: string) => (await getDb().select().from(schema.jobs).where(eq(schema.jobs.id, id)))[0]!;
const call = (tool: string, args: object) => `/call ${tool} ${JSON.stringify(args)}`;

type ToolResult = { name: string; status: string; content: string };
type Member = { id: string; name: string; conversationId: string | null };

async function toolResultsOf(conversationId: string, match: (kwargs: Record<string, unknown>) => boolean): Promise<ToolResult[]> {
  const { messages } = await readThread(conversationId);
  const start = messages.findIndex((m) => m.getType() === 'human' && match((m.additional_kwargs.ensemble ?? {}) as Record<string, unknown>));
  expect(start).toBeGreaterThanOrEqual(0);
  const out: ToolResult[] = [];
  for (const m of messages.slice(start + 1)) {
    if (m.getType() === 'human') break;
    if (m.getType() === 'tool') out.push({ name: m.name ?? '', status: (m as ToolMessage).status ?? 'success', content: String(m.content) });
  }
  return out;
}

/** Send one request to a member and wait for it to finish; returns the job and its tool results in order. */
async function run(ownerId: string, teamId: string, member: Member, lines: string[]): Promise<{ job: Job; results: ToolResult[] }> {
  const sent = (await sendRequest(ownerId, teamId, { memberIds: [member.id], text: lines.join('\n'), draftKey: crypto.randomUUID() })).jobs[0]!;
  const job = await until(async () => ['completed', 'failed', 'cancelled', 'waiting_input'].includes((await jobRow(sent.id)).status) && await jobRow(sent.id), 15_000, `job ${sent.id}`);
  expect(job.status).toBe('completed');
  return { job, results: await toolResultsOf(member.conversationId!, (k) => k.jobId === job.id) };
}

function ok<T>(r: ToolResult | undefined): T {
  expect(r?.status, r?.content).toBe('success');
  return JSON.parse(r!.content) as T;
}
function refused(r: ToolResult | undefined, message: RegExp) {
  expect(r?.status).toBe('error');
  expect(r?.content).toMatch(message);
}

beforeAll(() => {
  registerTeamTools();
  startScheduler(teamJobs, { tickMs: 50 });
});
afterAll(async () => {
  await stopScheduler();
});

async function setup(answer = 'The vendor quote is 42 "EUR"') {
  const user = await makeUser('owner');
  const { team, agents } = await makeTeam(user.id, ['Research', 'Review']);
  const members = team.members as Member[];
  // Evidence: a finished request whose answer mentions the quote.
  const evidence = await run(user.id, team.id, members[1]!, [`Price check\n/reply ${answer}`]);
  return { user, team, agents, members, evidence: evidence.job };
}

describe('history tools through ToolNode', () => {
  it('search_team_results finds the stored answer and read_team_result reads it; the final answer carries the excerpt', async () => {
    const { user, team, members, evidence } = await setup();
    const { job, results } = await run(user.id, team.id, members[0]!, [
      call('search_team_results', { query: 'QUOTE' }),
      call('read_team_result', { job_id: evidence.id }),
      call('read_team_history', { member_id: members[1]!.name, limit: 2 }),
    ]);
    expect(results.map((r) => r.name)).toEqual(['search_team_results', 'read_team_result', 'read_team_history']);
    const search = ok<ResultsPage>(results[0]);
    expect(search.results.map((r) => r.job_id)).toEqual([evidence.id]);
    expect(search.results[0]).toMatchObject({
      status: 'completed',
      member: { member_id: members[1]!.id },
      requester: { member_id: null, name: 'You' },
      answer: { available: true, kind: 'result', excerpt: 'The vendor quote is 42 "EUR"', truncated: false },
    });
    // The scripted final answer lists each tool result's first 200 characters.
    expect(job.result).toContain(`[search_team_results] ${results[0]!.content.slice(0, 200)}`);
    expect(job.result).toContain(`[search_team_results] {"results":[{"job_id":"${evidence.id}"`);

    const read = ok<TeamResult>(results[1]);
    expect(read.job).toMatchObject({ job_id: evidence.id, kind: 'request', status: 'completed', conversation: { conversation_id: members[1]!.conversationId, run_id: evidence.runId } });
    expect(read.result).toEqual({ available: true, kind: 'result', text: 'The vendor quote is 42 "EUR"', truncated: false });

    // History of Review: its result line, then the request it received.
    const history = ok<HistoryPage>(results[2]);
    expect(history.messages.map((m) => [m.kind, m.job_id])).toEqual([
      ['result', evidence.id],
      ['request', evidence.id],
    ]);
    // The current request's own line is on the record too: the page is live.
    const mine = ok<HistoryPage>((await run(user.id, team.id, members[0]!, [call('read_team_history', { limit: 1 })])).results[0]);
    expect(mine.messages[0]).toMatchObject({ kind: 'request', recipient: { member_id: members[0]!.id } });
  });

  it('pages with next_cursor across requests, rejects changed filters and bad limits, and ignores a team_id argument', async () => {
    const { user, team, members } = await setup();
    await writeTx(async (tx) => {
      for (let i = 0; i < 6; i++) {
        await appendShared(tx, { teamId: team.id, jobId: null, kind: 'note', senderMemberId: null, senderLabel: 'Ensemble', recipientMemberId: null, text: `marker ${i}` });
      }
    });
    const first = ok<HistoryPage>((await run(user.id, team.id, members[0]!, [call('read_team_history', { query: 'marker', limit: 4 })])).results[0]);
    // The calling request's own line matches too (pages are live); the next request's line will be newer than
    // the anchor, so it never shifts page 2.
    expect(first.messages.map((m) => m.text)).toEqual([call('read_team_history', { query: 'marker', limit: 4 }), 'marker 5', 'marker 4', 'marker 3']);
    const { results } = await run(user.id, team.id, members[0]!, [
      call('read_team_history', { query: 'marker', limit: 4, cursor: first.next_cursor, team_id: 'someone-else' }),
      call('read_team_history', { query: 'other', cursor: first.next_cursor }),
      call('search_team_results', { limit: 21 }),
      call('read_team_history', { limit: 0 }),
      call('read_team_result', { job_id: 'no-such-job' }),
      call('read_team_history', { member_id: 'Nobody' }),
    ]);
    const second = ok<HistoryPage>(results[0]);
    expect(second.messages.map((m) => m.text)).toEqual(['marker 2', 'marker 1', 'marker 0']);
    expect(second.next_cursor).toBeNull();
    refused(results[1], /cursor belongs to a different query/);
    refused(results[2], /limit/);
    refused(results[3], /limit/);
    refused(results[4], /No request or receipt "no-such-job" in this team/);
    refused(results[5], /No member "Nobody" in this team/);
  });

  it('reads a result after the shared record rotated', async () => {
    const { user, team, members, evidence } = await setup();
    await writeTx(async (tx) => {
      for (let i = 0; i < 110; i++) {
        await appendShared(tx, { teamId: team.id, jobId: null, kind: 'note', senderMemberId: null, senderLabel: 'Ensemble', recipientMemberId: null, text: `chatter ${i}` });
      }
    });
    const { results } = await run(user.id, team.id, members[0]!, [
      call('read_team_history', { job_id: evidence.id }),
      call('read_team_result', { job_id: evidence.id }),
    ]);
    expect(ok<HistoryPage>(results[0]).messages).toEqual([]);
    expect(ok<TeamResult>(results[1]).result).toMatchObject({ available: true, text: 'The vendor quote is 42 "EUR"' });
  });

  it('refuses a plain conversation of the same owner and reads nothing', async () => {
    const { user, agents, evidence } = await setup();
    const conversation = await createConversation(user.id, agents[0]!.id);
    // The owner's own chat message (start): its directives are trusted.
    const { run: plain } = await start(
      user.id,
      conversation.id,
      {
        text: [
          call('search_team_results', { query: 'quote' }),
          call('read_team_history', {}),
          call('read_team_result', { job_id: evidence.id }),
        ].join('\n'),
      },
      { idempotencyKey: 'plain-history' },
    );
    expect((await wait(plain.id, 15_000))?.status).toBe('success');
    const results = await toolResultsOf(conversation.id, (k) => k.runId === plain.id);
    expect(results.map((r) => r.name)).toEqual(['search_team_results', 'read_team_history', 'read_team_result']);
    for (const r of results) {
      refused(r, new RegExp(NOT_A_MEMBER));
      expect(r.content).not.toContain('vendor quote');
      expect(r.content).not.toContain(evidence.id);
    }
  });

  it("another owner's member conversation cannot read this team, even naming its ids", async () => {
    const alice = await setup();
    const bob = await setup('Bob has his own quote');
    const { results } = await run(bob.user.id, bob.team.id, bob.members[0]!, [
      call('read_team_result', { job_id: alice.evidence.id, team_id: alice.team.id }),
      call('read_team_history', { job_id: alice.evidence.id }),
      call('search_team_results', { member_id: alice.members[1]!.id }),
      call('search_team_results', { team_id: alice.team.id, query: 'quote' }),
    ]);
    refused(results[0], /No request or receipt/);
    refused(results[1], /No request or receipt/);
    refused(results[2], /No member/);
    // Bob's own team has its own evidence; Alice's never appears.
    const search = ok<ResultsPage>(results[3]);
    expect(search.results.map((r) => r.job_id)).toEqual([bob.evidence.id]);
    for (const r of results) expect(r.content).not.toContain('vendor');
  });
});
