import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiFileDetail } from '@/lib/types/file';
import { getDb, schema } from '@/server/db';
import { fileTools } from '@/server/files/tool-group/tools';
import { conversationWith } from '../agents/helpers';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { detail, list, uploaded, type TestUser } from './helpers';

let ann: TestUser;
let bob: TestUser;
let teamId: string;
let member: { id: string; name: string; conversationId: string };
let chatId: string;

type Tools = ReturnType<typeof fileTools>;
const byName = (tools: Tools, name: string) => tools.find((t) => t.name === name)!;

/** Call a files tool as a run in `conversationId` of `ownerId` would (the run context the runtime writes). */
async function callTool(ownerId: string, conversationId: string, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const context = { ownerId, conversationId, runId: `run-${name}`, agentId: null };
  const tool = byName(fileTools(context), name);
  const out = await (tool as unknown as { invoke(a: unknown, c: unknown): Promise<unknown> }).invoke(args, { configurable: { ensemble: context } });
  return JSON.parse(String(out)) as Record<string, unknown>;
}

beforeAll(async () => {
  ann = await makeUser('ann');
  bob = await makeUser('bob');
  teamId = (await makeTeam(ann.id)).team.id;
  const [m] = await getDb().select().from(schema.teamMembers).where(eq(schema.teamMembers.teamId, teamId));
  member = { id: m!.id, name: m!.name, conversationId: m!.conversationId! };
  chatId = (await conversationWith(ann.id)).conversation.id;
});

describe('the files tool group', () => {
  it('a member lists and reads the team workspace a person uploaded to, by lines and by bytes', async () => {
    const f = await uploaded(ann, 'team', teamId, 'brief.md', new TextEncoder().encode('line one\nline two 報告\nline three 🚀\n'));
    const listed = (await callTool(ann.id, member.conversationId, 'list_files', {})) as { files: Array<{ id: string }> };
    expect(listed.files.map((x) => x.id)).toContain(f.id);
    const lines = await callTool(ann.id, member.conversationId, 'read_file', { file_id: f.id, start_line: 2, end_line: 3 });
    expect(lines).toMatchObject({ text: 'line two 報告\nline three 🚀', fromLine: 2, toLine: 3 });
    const bytes = await callTool(ann.id, member.conversationId, 'read_file', { name: 'brief.md', start_byte: 5, end_byte: 8 });
    expect(bytes).toMatchObject({ text: 'one', startByte: 5, endByte: 8, truncated: true });
  });

  it('writes a new file as the member with its run, then a version only on the revision read', async () => {
    const created = (await callTool(ann.id, member.conversationId, 'write_file', { name: 'result.md', content: 'v1\n' })) as { written: boolean; file: { id: string; revision: number } };
    expect(created).toMatchObject({ written: true, file: { revision: 1 } });
    const d = (await (await detail(ann, created.file.id)).json()) as ApiFileDetail;
    expect(d.file.author).toEqual({ kind: 'member', memberId: member.id, name: member.name });
    expect(d.file.runId).toBe('run-write_file');

    // No expected revision for an existing file: refused with the current revision, nothing written.
    expect(await callTool(ann.id, member.conversationId, 'write_file', { name: 'result.md', content: 'oops' })).toMatchObject({ written: false, conflict: true, currentRevision: 1 });
    expect(await callTool(ann.id, member.conversationId, 'write_file', { file_id: created.file.id, content: 'v2\n', expected_revision: 1 })).toMatchObject({ written: true, file: { revision: 2 } });
    // A stale revision: refused, the file stays at 2.
    expect(await callTool(ann.id, member.conversationId, 'write_file', { file_id: created.file.id, content: 'stale', expected_revision: 1 })).toMatchObject({ written: false, conflict: true, currentRevision: 2 });
    expect(await callTool(ann.id, member.conversationId, 'append_file', { file_id: created.file.id, content: 'more\n', expected_revision: 1 })).toMatchObject({ written: false, currentRevision: 2 });
    expect(await callTool(ann.id, member.conversationId, 'append_file', { file_id: created.file.id, content: 'more\n', expected_revision: 2 })).toMatchObject({ written: true, file: { revision: 3 } });
    expect(await callTool(ann.id, member.conversationId, 'read_file', { file_id: created.file.id })).toMatchObject({ text: 'v2\nmore' });
    const after = (await (await detail(ann, created.file.id)).json()) as ApiFileDetail;
    expect(after.versions.map((v) => v.revision)).toEqual([3, 2, 1]);
  });

  it('searches literal text across text files, bounded, with file and line', async () => {
    await uploaded(ann, 'team', teamId, 'a.txt', new TextEncoder().encode('alpha\nneedle here\nomega\n'));
    await uploaded(ann, 'team', teamId, 'b.txt', new TextEncoder().encode('NEEDLE upper\n'));
    const found = (await callTool(ann.id, member.conversationId, 'search_files', { query: 'needle' })) as { matches: Array<{ name: string; line: number }> };
    expect(found.matches).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'a.txt', line: 2 }), expect.objectContaining({ name: 'b.txt', line: 1 })]));
    const exact = (await callTool(ann.id, member.conversationId, 'search_files', { query: 'needle', case_sensitive: true })) as { matches: Array<{ name: string }> };
    expect(exact.matches.map((m) => m.name)).not.toContain('b.txt');
    // Regex syntax is literal text.
    expect(((await callTool(ann.id, member.conversationId, 'search_files', { query: 'n.edle' })) as { matches: unknown[] }).matches).toEqual([]);
  });

  it('a chat run works on its own chat’s files, never the team workspace', async () => {
    const written = (await callTool(ann.id, chatId, 'write_file', { name: 'chat-note.md', content: 'in the chat' })) as { file: { id: string } };
    const chat = (await (await list(ann, 'conversation', chatId)).json()) as { files: Array<{ id: string }> };
    expect(chat.files.map((f) => f.id)).toContain(written.file.id);
    const team = (await (await list(ann, 'team', teamId)).json()) as { files: Array<{ id: string }> };
    expect(team.files.map((f) => f.id)).not.toContain(written.file.id);
  });

  it('another owner’s run can’t read or write this owner’s files, even by id', async () => {
    const f = await uploaded(ann, 'team', teamId, 'private.txt', new TextEncoder().encode('private'));
    const bobChat = (await conversationWith(bob.id)).conversation.id;
    await expect(callTool(bob.id, bobChat, 'read_file', { file_id: f.id })).rejects.toThrow(/No file/);
    await expect(callTool(bob.id, bobChat, 'write_file', { file_id: f.id, content: 'x', expected_revision: 1 })).rejects.toThrow(/No file/);
    // A context naming ann's member conversation with bob as owner is no member of bob's.
    await expect(callTool(bob.id, member.conversationId, 'list_files', {})).rejects.toThrow(/no files/);
    expect(((await (await detail(ann, f.id)).json()) as ApiFileDetail).file.revision).toBe(1);
  });

  it('an image is a typed reference; a binary file is refused as text', async () => {
    const { PNG } = await import('./helpers');
    const img = await uploaded(ann, 'team', teamId, 'pic.png', PNG);
    expect(await callTool(ann.id, member.conversationId, 'read_file', { file_id: img.id })).toMatchObject({ kind: 'image', reference: expect.stringMatching(/^\[image: image\/png, \d+ bytes/) });
    const bin = await uploaded(ann, 'team', teamId, 'x.bin', Uint8Array.from([0, 0, 1, 2]));
    await expect(callTool(ann.id, member.conversationId, 'read_file', { file_id: bin.id })).rejects.toThrow(/binary/);
  });
});
