import crypto from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '@/server/db';
import { sendRequest } from '@/server/teams/requests';
import { settled, withScheduler } from '../test/support/scheduler';
import { scriptAgent } from '../test/support/scripts';
import { makeTeam } from '../test/support/teams';
import { makeUser } from '../test/support/users';

// On Postgres, whose `text` refuses U+0000 (ADR 046). A tool's error that holds a NUL (here: send_member's "No member
// …" naming the member asked for) lands in the job's result. What must not happen: completeJob throwing on it, the
// job left 'running' and holding a slot of the team.
withScheduler();

describe('a team job whose tool error contains NUL', () => {
  it('finishes, with U+FFFD in its result, and no job of the team is left running', async () => {
    const owner = await makeUser('owner');
    const { team, agents } = await makeTeam(owner.id);
    await scriptAgent(agents[0]!.id, `/call send_member ${JSON.stringify({ member: 'nobody broke\u0000here', text: 'hi', request_id: 'r1' })}`);
    const { jobs } = await sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: 'Go', draftKey: crypto.randomUUID() });
    const done = await settled(jobs[0]!.id);
    expect(done.status).toBe('completed');
    expect(done.result).toContain('No member "nobody broke\uFFFDhere"');
    const running = await getDb()
      .select({ id: schema.jobs.id })
      .from(schema.jobs)
      .where(and(eq(schema.jobs.teamId, team.id), inArray(schema.jobs.status, ['running', 'cancelling'])));
    expect(running).toEqual([]);
  });
});
