import { afterEach, describe, expect, it, vi } from 'vitest';
import { readCheckpointStore } from '@/server/agents/checkpointer';
import { readThread } from '@/server/agents/thread';
import { makeUser } from '../support/users';
import { conversationWith, send } from '../agents/helpers';

afterEach(async () => vi.restoreAllMocks());

describe('when run events cannot be written', () => {
  it('the run still runs, saves its steps and gets its outcome; the failure is logged', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'] });
    // A damaged checkpoint store: its run_events table is gone (this file's data directory or database only).
    await readCheckpointStore(
      (db) => void db.exec('DROP TABLE run_events'),
      async (saver) => void (await saver.pool.query(`DROP TABLE "${saver.schema}".run_events`)),
    );
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const run = await send(ann.id, conversation.id, '/call calculator {"expression":"6*7"}\n/reply 42');
    expect(run).toMatchObject({ status: 'success', error: null, modelCalls: 0, inputTokens: 0 });
    expect((await readThread(conversation.id)).messages.map((m) => m.getType())).toEqual(['human', 'ai', 'tool', 'ai']);
    expect(logged.mock.calls.some(([message]) => String(message).startsWith('[run-events] could not record'))).toBe(true);
  });
});
