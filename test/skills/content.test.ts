import fs from 'node:fs';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { getDb, schema } from '@/server/db';
import { ingest } from '@/server/files/ingest';
import { fileStore } from '@/server/files/store';
import { sweepFiles } from '@/server/files/sweep';
import { storedContent } from '../support/stored-content';
import { makeUser } from '../support/users';
import { create, created, get, type TestUser } from './helpers';

let ann: TestUser;
beforeAll(async () => {
  ann = await makeUser('ann');
});

async function* once(bytes: Uint8Array) {
  yield bytes;
}

describe('skill content in the file store', () => {
  it('the start-up sweep keeps content a skill names, and frees bytes a crash left without a row', async () => {
    const skill = await created(ann, { name: 'Kept', description: 'd', body: 'kept body' });
    const [row] = await getDb().select().from(schema.skillFiles).where(eq(schema.skillFiles.skillId, skill.id));
    // A crash between keeping bytes and writing the row that names them: content nothing names.
    const ingested = await ingest(once(new TextEncoder().encode(`left by a crash ${Date.now()}`)), 1_000);
    await fileStore().keep(ingested.tempPath, ingested.sha256, ingested.size);
    fs.rmSync(ingested.tempPath, { force: true });
    const orphan = ingested.sha256;
    expect(await storedContent(orphan)).not.toBeNull();
    await sweepFiles();
    expect(await storedContent(orphan)).toBeNull();
    // What must not happen: the sweep freeing a skill's content because no file version names it.
    expect((await storedContent(row!.sha256))?.toString('utf8')).toBe('kept body');
    expect(await getDb().select().from(schema.fileBlobs).where(eq(schema.fileBlobs.sha256, row!.sha256))).toHaveLength(1);
    expect(((await (await get(ann, skill.id)).json()) as { body: string }).body).toBe('kept body');
  });

  it('a flood of skills stops at LIMITS.skills.perAccount: the next one is refused and nothing is written', async () => {
    const flooder = await makeUser('flooder');
    for (let i = 0; i < LIMITS.skills.perAccount; i++) await created(flooder, { name: `s${i}`, description: 'd', body: '' });
    const over = await create(flooder, { name: 'one more', description: 'd', body: '' });
    expect(over.status).toBe(409);
    expect(((await over.json()) as { error: { code: string } }).error.code).toBe('skill_limit');
    expect((await getDb().select().from(schema.skills).where(eq(schema.skills.ownerId, flooder.id))).length).toBe(LIMITS.skills.perAccount);
  });
});
