import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeCheckpointer, getCheckpointer, maintainSettledThread, readCheckpointStore } from '@/server/agents/checkpointer';
import { deleteConversation } from '@/server/agents/conversation-delete';
import { sweepOrphanThreads } from '@/server/agents/orphan-thread-sweep';
import { readThread } from '@/server/agents/thread';
import { makeUser } from '../support/users';
import { conversationWith, send } from './helpers';

/**
 * ADR 050: a conversation's thread is deleted after the delete's rows commit. A crash in between leaves thread rows
 * whose conversation is gone; the start-up sweep deletes them. What must not happen: such rows surviving a restart, or
 * the sweep touching a thread whose conversation exists (the owner's other conversations, another owner's).
 * Runs on either engine (test:pg runs this file on Postgres too).
 */

afterEach(() => vi.restoreAllMocks());

/** Rows of this thread in every table of the checkpoint side (checkpoints, writes, messages, run events, compactions). */
async function threadRows(threadId: string): Promise<number> {
  return readCheckpointStore(
    (sqlite) =>
      ['thread_checkpoints', 'thread_writes', 'thread_messages', 'run_events', 'thread_compactions']
        .map((t) => (sqlite.prepare(`select count(*) as n from ${t} where thread_id = ?`).get(threadId) as { n: number }).n)
        .reduce((a, b) => a + b, 0),
    async (saver) => {
      const tables = ['checkpoints', 'checkpoint_blobs', 'checkpoint_writes', 'thread_messages', 'run_events', 'thread_compactions'];
      let n = 0;
      for (const t of tables) n += (await saver.pool.query<{ n: number }>(`select count(*)::int as n from "${saver.schema}".${t} where thread_id = $1`, [threadId])).rows[0]!.n;
      return n;
    },
  );
}

/** A conversation with a finished run, so its thread has rows; trimmed as a settled thread is, so its rows stay put. */
async function conversationWithThread(ownerId: string, text: string) {
  const { conversation } = await conversationWith(ownerId);
  expect((await send(ownerId, conversation.id, `/reply ${text}`)).status).toBe('success');
  await maintainSettledThread(conversation.id);
  return conversation.id;
}

/** The delete's transaction commits, then the process "dies" before any of its thread is deleted. */
async function deleteWithCrashBeforeThreads(ownerId: string, conversationId: string): Promise<void> {
  vi.spyOn(getCheckpointer(), 'deleteThread').mockRejectedValue(new Error('killed before the thread cleanup'));
  vi.spyOn(console, 'error').mockImplementation(() => {});
  await deleteConversation(ownerId, conversationId);
  vi.restoreAllMocks();
}

describe('the start-up sweep of threads whose conversation is gone', () => {
  it('a crash between a delete and its thread cleanup leaves no thread rows after a restart; live threads are untouched', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const doomed = await conversationWithThread(alice.id, 'doomed');
    const kept = await conversationWithThread(alice.id, 'kept');
    const foreign = await conversationWithThread(bob.id, 'foreign');
    const live = { kept: await threadRows(kept), foreign: await threadRows(foreign) };
    const messages = { kept: (await readThread(kept)).messages.length, foreign: (await readThread(foreign)).messages.length };
    expect(live.kept).toBeGreaterThan(0);
    expect(live.foreign).toBeGreaterThan(0);

    await deleteWithCrashBeforeThreads(alice.id, doomed);
    // The crash's state: the conversation is gone, its thread's rows are not.
    expect(await threadRows(doomed)).toBeGreaterThan(0);

    // Restart: a new checkpointer, as a new process opens it, then start-up's sweep.
    closeCheckpointer();
    expect(await sweepOrphanThreads()).toBe(1);
    expect(await threadRows(doomed)).toBe(0);
    // Must not happen: the sweep deleting any row of a conversation that exists, the owner's or another owner's.
    expect({ kept: await threadRows(kept), foreign: await threadRows(foreign) }).toEqual(live);
    expect({ kept: (await readThread(kept)).messages.length, foreign: (await readThread(foreign)).messages.length }).toEqual(messages);
    // A second start finds nothing left.
    expect(await sweepOrphanThreads()).toBe(0);
  });

  it('walks the threads a page at a time: orphans on every page go, the live threads between them stay', async () => {
    const dana = await makeUser('dana');
    const erin = await makeUser('erin');
    // Five orphans and three live threads under a page of two: thread ids are random, so orphans and live threads
    // share pages in any order; a page may hold no orphan at all, which must not end the walk.
    const doomed = [];
    for (let i = 0; i < 5; i++) doomed.push(await conversationWithThread(dana.id, `doomed ${i}`));
    const kept = [await conversationWithThread(dana.id, 'kept 1'), await conversationWithThread(dana.id, 'kept 2'), await conversationWithThread(erin.id, 'foreign')];
    const live = await Promise.all(kept.map(threadRows));
    for (const id of doomed) await deleteWithCrashBeforeThreads(dana.id, id);
    expect(await Promise.all(doomed.map(threadRows))).not.toContain(0);

    closeCheckpointer();
    expect(await sweepOrphanThreads(2)).toBe(5);
    expect(await Promise.all(doomed.map(threadRows))).toEqual([0, 0, 0, 0, 0]);
    // Must not happen: a live thread on a page with orphans (or after one) losing any row.
    expect(await Promise.all(kept.map(threadRows))).toEqual(live);
    expect(await sweepOrphanThreads(2)).toBe(0);
  });

  it('with nothing orphaned, deletes nothing', async () => {
    const carol = await makeUser('carol');
    const id = await conversationWithThread(carol.id, 'only');
    const before = await threadRows(id);
    expect(await sweepOrphanThreads()).toBe(0);
    expect(await threadRows(id)).toBe(before);
  });
});
