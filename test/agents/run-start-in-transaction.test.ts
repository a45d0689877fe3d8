import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startRun } from '@/server/agents/runs';
import { findRun, latestRun } from '@/server/agents/run-store';
import { afterCommit } from '@/server/db';
import type { Run } from '@/server/db/schema';
import { makeUser } from '../support/users';
import { conversationWith, finished } from './helpers';

// A team job records its run id through inTransaction (server/teams/execution.ts launchJob): the record and the
// run commit together or not at all.
describe('startRun inTransaction', () => {
  it('sees the new run inside its transaction, and the same run again for a repeated key', async () => {
    const owner = await makeUser('intx');
    const { conversation } = await conversationWith(owner.id);
    const idempotencyKey = crypto.randomUUID();
    const seen: Array<{ id: string; visible: boolean }> = [];
    // Kept once committed: on Postgres a transaction's body may run twice (ADR 033 §3).
    const record = async (_tx: unknown, run: Run) => {
      const visible = (await findRun(run.id))?.id === run.id;
      afterCommit(() => seen.push({ id: run.id, visible }));
    };

    const first = await startRun(conversation.id, { text: '/reply one' }, { idempotencyKey, inTransaction: record });
    expect(first.created).toBe(true);
    const again = await startRun(conversation.id, { text: '/reply one' }, { idempotencyKey, inTransaction: record });
    expect(again.created).toBe(false);
    expect(seen).toEqual([
      { id: first.run.id, visible: true },
      { id: first.run.id, visible: true },
    ]);
    expect((await finished(first.run.id)).status).toBe('success');
  });

  it('a throw inside it undoes the run: no row, nothing launched', async () => {
    const owner = await makeUser('intx-throw');
    const { conversation } = await conversationWith(owner.id);
    let created: string | undefined;
    await expect(
      startRun(
        conversation.id,
        { text: '/reply never' },
        {
          idempotencyKey: crypto.randomUUID(),
          inTransaction: (_tx, run) => {
            created = run.id;
            throw new Error('record failed');
          },
        },
      ),
    ).rejects.toThrow('record failed');
    expect(created).toBeDefined();
    expect(await findRun(created!)).toBeUndefined();
    expect(await latestRun(conversation.id)).toBeUndefined();
  });
});
