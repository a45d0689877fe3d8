import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { getDb, schema } from '@/server/db';
import { AppError } from '@/server/http/errors';
import { usedBytes } from '@/server/files/files';
import { ingest } from '@/server/files/ingest';
import { fileStore } from '@/server/files/store';
import { sweepFiles } from '@/server/files/sweep';
import { uploadFile } from '@/server/files/upload';
import { storedContent } from '../support/stored-content';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { upload, type TestUser } from './helpers';

let ann: TestUser;
let teamId: string;
const scope = () => ({ kind: 'team' as const, id: teamId });
const bytes = (n: number) => new Blob([new Uint8Array(n).fill(0x61)]).stream();
const refusal = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
};
const filesDir = () => path.join(process.env.DATA_DIR!, 'files');
const staged = () => (fs.existsSync(path.join(filesDir(), 'tmp')) ? fs.readdirSync(path.join(filesDir(), 'tmp')) : []);

beforeAll(async () => {
  ann = await makeUser('ann');
  teamId = (await makeTeam(ann.id)).team.id;
});

describe('per-file limit', () => {
  it('defaults to 25 MB and 1 GB per account', () => {
    expect(LIMITS.files.maxBytes).toBe(25 * 1024 * 1024);
    expect(LIMITS.files.quotaBytesPerAccount).toBe(1024 * 1024 * 1024);
  });

  it('takes a file at the limit and refuses one byte more (streamed, no length declared), storing nothing', async () => {
    const limits = { maxBytes: 1_000, quotaBytesPerAccount: 1_000_000 };
    const at = await uploadFile(ann.id, scope(), 'at.txt', bytes(1_000), null, limits);
    expect(at.size).toBe(1_000);
    const rows = (await getDb().select().from(schema.files)).length;
    const err = await refusal(uploadFile(ann.id, scope(), 'over.txt', bytes(1_001), null, limits));
    expect([err.status, err.code, Object.keys(err.fields ?? {})]).toEqual([413, 'file_too_large', ['file']]);
    expect((await getDb().select().from(schema.files)).length).toBe(rows);
    expect(staged()).toEqual([]);
  });

  it('refuses a declared Content-Length past the limit before reading the body', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled++;
        c.enqueue(new Uint8Array(10));
      },
    });
    const err = await refusal(uploadFile(ann.id, scope(), 'big.bin', body, LIMITS.files.maxBytes + 1));
    expect(err.status).toBe(413);
    expect(pulled).toBeLessThanOrEqual(1); // a stream may pre-pull one chunk; none is read into the store
    const res = await upload(ann, 'team', teamId, 'big.bin', 'x', { 'content-length': String(LIMITS.files.maxBytes + 1) });
    expect(res.status).toBe(413);
  });
});

describe('account quota', () => {
  it('fills the quota exactly, then refuses one byte more, across files and versions', async () => {
    const owner = await makeUser('quota');
    const team = (await makeTeam(owner.id)).team.id;
    const limits = { maxBytes: 10_000, quotaBytesPerAccount: 2_500 };
    await uploadFile(owner.id, { kind: 'team', id: team }, 'a.txt', bytes(1_500), null, limits);
    await uploadFile(owner.id, { kind: 'team', id: team }, 'b.txt', bytes(1_000), null, limits);
    expect(await usedBytes(owner.id)).toBe(2_500);
    const err = await refusal(uploadFile(owner.id, { kind: 'team', id: team }, 'c.txt', bytes(1), null, limits));
    expect([err.status, err.code, Object.keys(err.fields ?? {})]).toEqual([413, 'file_quota_exceeded', ['file']]);
    expect(await usedBytes(owner.id)).toBe(2_500);
    // Another account's quota is its own.
    expect(await usedBytes(ann.id)).toBeGreaterThan(0);
  });

  it('counts what the account holds after a refused upload: no row, no content', async () => {
    const owner = await makeUser('quota2');
    const team = (await makeTeam(owner.id)).team.id;
    const limits = { maxBytes: 10_000, quotaBytesPerAccount: 100 };
    const unique = new TextEncoder().encode(`unique ${crypto.randomUUID()} `.padEnd(150, 'z'));
    await refusal(uploadFile(owner.id, { kind: 'team', id: team }, 'x.txt', new Blob([unique]).stream(), null, limits));
    expect(await usedBytes(owner.id)).toBe(0);
    expect(await getDb().select().from(schema.fileBlobs)).not.toContainEqual(expect.objectContaining({ size: 150 }));
  });
});

describe('crash recovery', () => {
  it('the start-up sweep removes temporary files and content a crash left without a row', async () => {
    // An upload cut off by a crash: its temporary file stays in tmp/.
    fs.mkdirSync(path.join(filesDir(), 'tmp'), { recursive: true });
    fs.writeFileSync(path.join(filesDir(), 'tmp', 'crashed.part'), 'half');
    // Content kept durably, then the process died before its row was written.
    async function* one() {
      yield new TextEncoder().encode(`orphan ${crypto.randomUUID()}`);
    }
    const ingested = await ingest(one(), 1_000);
    await fileStore().keep(ingested.tempPath, ingested.sha256, ingested.size);
    // The Postgres store copies the staged file into a large object; the local one moved it.
    fs.rmSync(ingested.tempPath, { force: true });
    expect(await storedContent(ingested.sha256)).not.toBeNull();
    const kept = await uploadFile(ann.id, scope(), 'kept.txt', new Blob(['kept']).stream(), null);

    const swept = await sweepFiles();
    expect(swept.staged).toBe(1);
    expect(staged()).toEqual([]);
    expect(await storedContent(ingested.sha256)).toBeNull();
    // Content a version names is never swept.
    expect((await storedContent(kept.sha256))?.toString()).toBe('kept');
  });

  it('the sweep frees content whose files went with a deleted team', async () => {
    const owner = await makeUser('gone');
    const team = (await makeTeam(owner.id)).team.id;
    const f = await uploadFile(owner.id, { kind: 'team', id: team }, 'lost.txt', new Blob([`lost ${crypto.randomUUID()}`]).stream(), null);
    const { eq } = await import('drizzle-orm');
    const { writeTx } = await import('@/server/db');
    await writeTx((tx) => tx.delete(schema.teams).where(eq(schema.teams.id, team)));
    await sweepFiles();
    expect(await storedContent(f.sha256)).toBeNull();
    expect(await getDb().select().from(schema.fileBlobs)).not.toContainEqual(expect.objectContaining({ sha256: f.sha256 }));
  });
});
