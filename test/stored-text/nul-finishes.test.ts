import crypto from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { start, wait } from '@/server/agents/runs';
import { getDb, schema } from '@/server/db';
import { sendRequest } from '@/server/teams/requests';
import { conversationWith } from '../agents/helpers';
import { job, settled, withScheduler } from '../support/scheduler';
import { scriptAgent } from '../support/scripts';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';

// Model, tool and error text holding U+0000 or a lone surrogate (a person's text is refused before; ADR 046). It runs
// on both engines: under `npm run test:pg` on Postgres, where `text` refuses a NUL outright.
// What must not happen: a finish that throws, leaving a run or job 'running' (a busy conversation, a held slot), or
// the two engines storing different text.
const NUL = 'broke\u0000here';
const LONE = 'half \uD83D of an emoji';

withScheduler();

describe('text with NUL from a model or an error is stored repaired, and the work finishes', () => {
  it('a conversation run failing with NUL in its error finishes; the conversation takes the next message', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { instructions: `/fail ${NUL}` });
    const { run } = await start(alice.id, conversation.id, { text: 'go' }, { idempotencyKey: crypto.randomUUID() });
    const done = await wait(run.id, 10_000);
    expect(done).toMatchObject({ status: 'error', error: expect.stringContaining('broke\uFFFDhere') });
    expect(done!.error).not.toContain('\u0000');
    // Not busy: the next message starts a run of its own.
    const next = await start(alice.id, conversation.id, { text: 'again' }, { idempotencyKey: crypto.randomUUID() });
    expect(next.created).toBe(true);
    expect((await wait(next.run.id, 10_000))?.status).toBe('error');
  });

  it('a team job: an error with NUL fails the job, a result with NUL and a lone surrogate completes it; nothing is left running', async () => {
    const owner = await makeUser('owner');
    const { team, agents } = await makeTeam(owner.id);
    await scriptAgent(agents[0]!.id, `/fail ${NUL}`);
    await scriptAgent(agents[1]!.id, `/reply ${NUL} ${LONE}`);
    const { jobs } = await sendRequest(owner.id, team.id, { memberIds: team.members.map((m) => m.id), text: 'Go', draftKey: crypto.randomUUID() });
    const [failed, completed] = await Promise.all(jobs.map((j) => settled(j.id)));
    expect(failed).toMatchObject({ status: 'failed', error: expect.stringContaining('broke\uFFFDhere') });
    expect(completed).toMatchObject({ status: 'completed', result: expect.stringContaining('broke\uFFFDhere half \uFFFD of an emoji') });
    // The receipts and shared-record lines written with them hold the repaired text too.
    const lines = await getDb().select().from(schema.sharedMessages).where(eq(schema.sharedMessages.teamId, team.id));
    expect(lines.filter((l) => l.text.includes('broke\uFFFDhere')).length).toBeGreaterThanOrEqual(2);
    expect(lines.some((l) => l.text.includes('\u0000') || !l.text.isWellFormed())).toBe(false);
    const running = await getDb()
      .select()
      .from(schema.jobs)
      .where(and(eq(schema.jobs.teamId, team.id), inArray(schema.jobs.status, ['running', 'cancelling'])));
    expect(running).toEqual([]);
    expect((await job(failed!.id)).error).not.toContain('\u0000');
  });
});
