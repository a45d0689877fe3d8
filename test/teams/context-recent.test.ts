import { describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { writeTx } from '@/server/db';
import { buildSharedContext } from '@/server/teams/context';
import { appendShared } from '@/server/teams/shared-record';
import { makeUser } from '../support/users';
import { makeTeam } from '../support/teams';

const IN_CONTEXT = LIMITS.sharedRecord.inContext;

async function appendNotes(teamId: string, texts: string[]) {
  await writeTx(async (tx) => {
    for (const text of texts) {
      await appendShared(tx, { teamId, jobId: null, kind: 'note', senderMemberId: null, senderLabel: 'Ensemble', recipientMemberId: null, text });
    }
  });
}
const notes = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix} ${i}`);

describe('the shared context carries the newest shared-record lines', () => {
  it('holds all of them at the bound, oldest first', async () => {
    const user = await makeUser('owner');
    const { team } = await makeTeam(user.id);
    const texts = notes('note 🚀 研究', IN_CONTEXT);
    await appendNotes(team.id, texts);
    const ctx = await buildSharedContext(team.id);
    expect(ctx.recentMessages.map((m) => m.text)).toEqual(texts);
    expect(ctx.recentMessages[0]).toMatchObject({ from: 'Ensemble', to: null, kind: 'note' });
  });

  it('one past the bound drops the oldest, and never carries another team’s lines', async () => {
    const user = await makeUser('owner');
    const stranger = await makeUser('stranger');
    const { team } = await makeTeam(user.id);
    const { team: other } = await makeTeam(stranger.id);
    const texts = notes('mine', IN_CONTEXT + 1);
    await appendNotes(team.id, texts);
    // Newer than all of mine: it must not push one of them out, nor appear.
    await appendNotes(other.id, ['theirs']);
    const ctx = await buildSharedContext(team.id);
    expect(ctx.recentMessages.map((m) => m.text)).toEqual(texts.slice(1));
    expect((await buildSharedContext(other.id)).recentMessages.map((m) => m.text)).toEqual(['theirs']);
  });
});
