import { AsyncLocalStorage } from 'node:async_hooks';
import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { GET as conversationRoute } from '@/app/api/v1/conversations/[id]/route';
import { POST as messageRoute } from '@/app/api/v1/conversations/[id]/messages/route';
import { GET as activityRoute } from '@/app/api/v1/teams/[id]/activity/route';
import { POST as requestRoute } from '@/app/api/v1/teams/[id]/requests/route';
import type { ConversationDetail } from '@/lib/types/conversation';
import type { ApiAttachment } from '@/lib/types/file';
import type { ApiActivity, ApiJob } from '@/lib/types/team';
import { deleteConversation } from '@/server/agents/conversation-delete';
import { getState } from '@/server/agents/runs';
import { databaseEngine, getDb, schema } from '@/server/db';
import { attachmentsFor } from '@/server/files/attachments';
import { exportTeam } from '@/server/teams/export';
import { getActivity } from '@/server/teams/activity';
import { conversationWith, finished } from '../agents/helpers';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { BASE, remove, uploaded, type TestUser } from './helpers';

let ann: TestUser;
let bob: TestUser;

const bytes = (text: string) => new TextEncoder().encode(text);
const ctx = (id: string) => ({ params: Promise.resolve({ id }) });
const postJson = (handler: typeof messageRoute, url: string, user: TestUser, id: string, body: unknown) =>
  handler(new Request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...user.auth }, body: JSON.stringify(body) }), ctx(id));
const getJson = (handler: typeof conversationRoute, url: string, user: TestUser, id: string) => handler(new Request(url, { headers: user.auth }), ctx(id));

async function sendWith(user: TestUser, chatId: string, text: string, attachments: string[]): Promise<string> {
  const res = await postJson(messageRoute, `${BASE}/conversations/${chatId}/messages`, user, chatId, { text, attachments });
  expect(res.status).toBe(202);
  const { run } = (await res.json()) as { run: { id: string } };
  await finished(run.id);
  return run.id;
}

async function chatView(user: TestUser, chatId: string): Promise<ConversationDetail> {
  const res = await getJson(conversationRoute, `${BASE}/conversations/${chatId}`, user, chatId);
  expect(res.status).toBe(200);
  return (await res.json()) as ConversationDetail;
}

async function feedView(user: TestUser, teamId: string): Promise<ApiJob[]> {
  const res = await getJson(activityRoute, `${BASE}/teams/${teamId}/activity?details=true`, user, teamId);
  expect(res.status).toBe(200);
  const body = (await res.json()) as ApiActivity;
  if (!('jobs' in body)) throw new Error('expected jobs');
  return body.jobs;
}

const shown = (file: { id: string; name: string; size: number; mediaType: string; revision: number }): ApiAttachment => ({
  fileId: file.id,
  name: file.name,
  size: file.size,
  mediaType: file.mediaType,
  revision: file.revision,
  deleted: false,
});

/** How many statements naming file_attachments `read` sends (SQLite: prepared on the reader; Postgres: pool queries). */
async function attachmentStatements(read: () => Promise<unknown>): Promise<number> {
  const client = getDb().$client as unknown as Record<'prepare' | 'query', (...args: unknown[]) => unknown>;
  const method = databaseEngine() === 'postgres' ? 'query' : 'prepare';
  const original = client[method];
  const counting = new AsyncLocalStorage<true>();
  let sent = 0;
  const spy = vi.spyOn(client, method).mockImplementation(function (this: unknown, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string } | undefined)?.text ?? '');
    if (counting.getStore() && text.includes('file_attachments')) sent += 1;
    return original.apply(this, args);
  });
  try {
    await counting.run(true, read);
  } finally {
    spy.mockRestore();
  }
  return sent;
}

beforeAll(async () => {
  ann = await makeUser('ann');
  bob = await makeUser('bob');
});

describe('a chat message lists what was attached to it', () => {
  it('each person’s message shows its files in the order sent (CJK and emoji names as written); a deleted file stays, as deleted', async () => {
    const chatId = (await conversationWith(ann.id)).conversation.id;
    const notes = await uploaded(ann, 'conversation', chatId, 'notes.md', bytes('# notes'));
    const cjk = await uploaded(ann, 'conversation', chatId, '報告 📊.txt', bytes('数字'));
    const first = await sendWith(ann, chatId, '/reply one', [cjk.id, notes.id]);
    await sendWith(ann, chatId, '/reply two', []);
    const third = await sendWith(ann, chatId, '/reply three', [notes.id]);

    const view = await chatView(ann, chatId);
    const mine = view.messages.filter((m) => m.role === 'user');
    expect(mine.map((m) => m.text)).toEqual(['/reply one', '/reply two', '/reply three']);
    expect(mine[0]!.attachments).toEqual([shown(cjk), shown(notes)]);
    expect(mine[1]!.attachments).toBeUndefined();
    expect(mine[2]!.attachments).toEqual([shown(notes)]);
    expect(view.messages.filter((m) => m.role !== 'user').every((m) => m.attachments === undefined)).toBe(true);

    expect((await remove(ann, notes.id)).status).toBe(204);
    const after = (await chatView(ann, chatId)).messages.filter((m) => m.role === 'user');
    const gone: ApiAttachment = { fileId: null, name: 'notes.md', size: notes.size, mediaType: notes.mediaType, revision: null, deleted: true };
    expect(after[0]!.attachments).toEqual([shown(cjk), gone]);
    expect(after[2]!.attachments).toEqual([gone]);
    // The rows are the runs' own: both runs still hold them.
    expect((await attachmentsFor(ann.id, [first, third])).size).toBe(2);
  });

  it('reads the whole chat’s attachments in one statement, however many messages carry files', async () => {
    const chatId = (await conversationWith(ann.id)).conversation.id;
    const f = await uploaded(ann, 'conversation', chatId, 'a.txt', bytes('a'));
    await sendWith(ann, chatId, '/reply 1', [f.id]);
    expect(await attachmentStatements(() => getState(ann.id, chatId))).toBe(1);
    await sendWith(ann, chatId, '/reply 2', [f.id]);
    await sendWith(ann, chatId, '/reply 3', [f.id]);
    expect(await attachmentStatements(() => getState(ann.id, chatId))).toBe(1);
  });

  it('another owner reads none of them: not through the chat (404), nor by the run ids themselves', async () => {
    const chatId = (await conversationWith(ann.id)).conversation.id;
    const f = await uploaded(ann, 'conversation', chatId, 'private.txt', bytes('p'));
    const runId = await sendWith(ann, chatId, '/reply p', [f.id]);
    expect((await getJson(conversationRoute, `${BASE}/conversations/${chatId}`, bob, chatId)).status).toBe(404);
    // Must not happen: bob's owner id reading ann's rows through a run id he learned.
    expect((await attachmentsFor(bob.id, [runId])).size).toBe(0);
    expect((await attachmentsFor(ann.id, [runId])).get(runId)).toEqual([shown(f)]);
  });

  it('deleting the chat deletes its attachment rows, kept names included', async () => {
    const chatId = (await conversationWith(ann.id)).conversation.id;
    const f = await uploaded(ann, 'conversation', chatId, 'gone-with-chat.txt', bytes('g'));
    await sendWith(ann, chatId, '/reply g', [f.id]);
    await deleteConversation(ann.id, chatId);
    expect(await getDb().select().from(schema.fileAttachments).where(eq(schema.fileAttachments.conversationId, chatId))).toEqual([]);
    expect(await getDb().select().from(schema.fileAttachments).where(eq(schema.fileAttachments.name, 'gone-with-chat.txt'))).toEqual([]);
  });
});

describe('a team request lists what was attached to it', () => {
  async function requestWith(user: TestUser, teamId: string, memberIds: string[], text: string, attachments: string[]) {
    const res = await postJson(requestRoute, `${BASE}/teams/${teamId}/requests`, user, teamId, { memberIds, text, draftKey: crypto.randomUUID(), attachments });
    expect(res.status).toBe(201);
    return ((await res.json()) as { jobs: Array<{ id: string }> }).jobs.map((j) => j.id);
  }

  it('each member’s job in the feed and the export lists the files; a request without any lists none; deleted ones say so', async () => {
    const { team } = await makeTeam(ann.id);
    const memberIds = (await getDb().select().from(schema.teamMembers).where(eq(schema.teamMembers.teamId, team.id))).map((m) => m.id);
    const brief = await uploaded(ann, 'team', team.id, 'brief 🚀.md', bytes('# brief'));
    const data = await uploaded(ann, 'team', team.id, 'data.csv', bytes('a,b\n1,2\n'));
    const sent = await requestWith(ann, team.id, memberIds, 'Read these', [brief.id, data.id]);
    const plain = await requestWith(ann, team.id, memberIds.slice(0, 1), 'Nothing attached', []);

    const jobs = await feedView(ann, team.id);
    for (const id of sent) expect(jobs.find((j) => j.id === id)!.attachments).toEqual([shown(brief), shown(data)]);
    expect(jobs.find((j) => j.id === plain[0])!.attachments).toEqual([]);

    expect((await remove(ann, data.id)).status).toBe(204);
    const gone: ApiAttachment = { fileId: null, name: 'data.csv', size: data.size, mediaType: data.mediaType, revision: null, deleted: true };
    for (const id of sent) expect((await feedView(ann, team.id)).find((j) => j.id === id)!.attachments).toEqual([shown(brief), gone]);

    const json = await exportText(ann.id, team.id, 'json');
    const exported = (JSON.parse(json) as { jobs: Array<{ id: string; attachments?: ApiAttachment[] }> }).jobs;
    expect(exported.find((j) => j.id === sent[0])!.attachments).toEqual([shown(brief), gone]);
    const md = await exportText(ann.id, team.id, 'md');
    expect(md).toContain(`- brief 🚀\\.md (${brief.size} bytes, ${brief.mediaType}, file ${brief.id})\n`);
    expect(md).toContain(`- data\\.csv (${data.size} bytes, ${data.mediaType}, deleted)\n`);
  });

  it('reads a feed page’s attachments in one statement, and another owner reads none', async () => {
    const { team } = await makeTeam(ann.id);
    const memberIds = (await getDb().select().from(schema.teamMembers).where(eq(schema.teamMembers.teamId, team.id))).map((m) => m.id);
    const f = await uploaded(ann, 'team', team.id, 'one.txt', bytes('1'));
    const [jobId] = await requestWith(ann, team.id, memberIds.slice(0, 1), 'first', [f.id]);
    const page = () => getActivity(ann.id, team.id, { limit: 20, offset: 0, details: true });
    expect(await attachmentStatements(page)).toBe(1);
    for (let i = 0; i < 3; i++) await requestWith(ann, team.id, memberIds, `more ${i}`, [f.id]);
    expect(await attachmentStatements(page)).toBe(1);

    expect((await getJson(activityRoute, `${BASE}/teams/${team.id}/activity`, bob, team.id)).status).toBe(404);
    // Must not happen: bob's owner id reading ann's rows through a job id.
    expect((await attachmentsFor(bob.id, [jobId!])).size).toBe(0);
  });
});

async function exportText(ownerId: string, teamId: string, format: 'md' | 'json'): Promise<string> {
  let text = '';
  for await (const chunk of (await exportTeam(ownerId, teamId, format)).chunks) text += chunk;
  return text;
}
