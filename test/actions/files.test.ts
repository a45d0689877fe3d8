import { signIn } from '../support/action-session';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

const actions = await import('@/app/(app)/files/actions');
const { getDb, schema } = await import('@/server/db');
const { makeUser } = await import('../support/users');
const { makeTeam } = await import('../support/teams');
const { uploadFile } = await import('@/server/files/upload');
const { NOT_FOUND, rowsOf } = await import('./support');

const fileRows = () => rowsOf(schema.files, schema.fileVersions);
const bytes = (text: string) => new Blob([text]).stream();

describe('deleteFileAction', () => {
  it('deletes the owner’s file with every version; the same call again answers not_found', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const file = await uploadFile(alice.id, { kind: 'team', id: team.id }, '報告 😀.md', bytes('# one\n'), null);
    signIn(alice);
    expect(await actions.deleteFileAction(file.id)).toEqual({ ok: true, data: { deleted: true } });
    expect(await getDb().select().from(schema.files).where(eq(schema.files.id, file.id))).toEqual([]);
    expect(await getDb().select().from(schema.fileVersions).where(eq(schema.fileVersions.fileId, file.id))).toEqual([]);
    expect(await actions.deleteFileAction(file.id)).toMatchObject(NOT_FOUND);
  });

  it('another owner’s file answers not_found, like a missing one, and nothing is deleted', async () => {
    const alice = await makeUser('alice');
    const mallory = await makeUser('mallory');
    const { team } = await makeTeam(alice.id);
    const file = await uploadFile(alice.id, { kind: 'team', id: team.id }, 'secret.txt', bytes('only mine\n'), null);
    const before = await fileRows();
    signIn(mallory);
    expect(await actions.deleteFileAction(file.id)).toMatchObject(NOT_FOUND);
    expect(await actions.deleteFileAction('no-such-file')).toMatchObject(NOT_FOUND);
    // Junk instead of an id is the same not_found, never a crash or a delete.
    expect(await actions.deleteFileAction({ id: file.id })).toMatchObject(NOT_FOUND);
    expect(await fileRows()).toBe(before);
  });
});
