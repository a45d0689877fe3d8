import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, openDatabase, schema } from '@/server/db';
import { deleteFile, fileVersion, ownedFile, versionBytes } from '@/server/files/files';
import { ingest } from '@/server/files/ingest';
import { freeUnnamed, LO_CHUNK_BYTES, pgFileStore } from '@/server/files/pg-store';
import { fileStore, overrideFileStore, type FileStore } from '@/server/files/store';
import { sweepFiles } from '@/server/files/sweep';
import { uploadFile } from '@/server/files/upload';
import { makeTeam } from '@/test/support/teams';
import { makeUser } from '@/test/support/users';
import { until } from '@/test/support/wait';

// ADR 058: on Postgres, file content lives in large objects every process shares. What must not happen: content
// buffered whole, a row naming content that isn't whole, a large object left behind by an aborted upload, content
// freed while a version names it (a sweep racing an upload of the same bytes in another process), freed content
// whose large object stays.

let owner: string;
let teamId: string;
// "Another process": its own pool on the same database.
let other: pg.Pool;
const scope = () => ({ kind: 'team' as const, id: teamId });
const staged = () => {
  const dir = path.join(process.env.DATA_DIR!, 'files', 'tmp');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const stream = (b: Uint8Array) => new Blob([new Uint8Array(b)]).stream();
async function* chunks(b: Uint8Array) {
  yield b;
}

async function largeObjects(): Promise<number[]> {
  const { rows } = await other.query<{ oid: number }>('select oid from pg_largeobject_metadata order by oid');
  return rows.map((r) => Number(r.oid));
}
async function blobRow(sha256: string) {
  const [row] = await getDb().select().from(schema.fileBlobs).where(eq(schema.fileBlobs.sha256, sha256));
  return row;
}
async function collect(it: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of it) parts.push(part);
  return Buffer.concat(parts);
}
async function readFile(fileId: string, range?: { start: number; end: number }): Promise<Buffer> {
  const file = await ownedFile(owner, fileId);
  return collect(versionBytes(await fileVersion(file), range));
}

/** The sweep's free, run by another process: its own SERIALIZABLE transaction, retried on a conflict as writeTx does. */
async function freeElsewhere(sha256: string): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const client = await other.connect();
    try {
      await client.query('begin isolation level serializable');
      const freed = await freeUnnamed(client, sha256);
      await client.query('commit');
      return freed;
    } catch (err) {
      await client.query('rollback');
      if (!['40001', '40P01'].includes((err as { code?: string }).code ?? '') || attempt >= 20) throw err;
    } finally {
      client.release();
    }
  }
}

beforeAll(async () => {
  await openDatabase();
  owner = (await makeUser('lo')).id;
  teamId = (await makeTeam(owner)).team.id;
  other = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
});
afterAll(async () => {
  overrideFileStore(undefined);
  await other.end();
});

describe('the Postgres large-object store', () => {
  it('is the store when the app runs on Postgres', () => {
    expect(fileStore().kind).toBe('postgres');
  });

  it('round-trips content of several chunks and reads ranges across chunk boundaries', async () => {
    const bytes = randomBytes(2 * LO_CHUNK_BYTES + 12_345);
    const before = await largeObjects();
    const file = await uploadFile(owner, scope(), 'data.bin', stream(bytes), null);
    expect(file.sha256).toBe(sha(bytes));
    const row = await blobRow(file.sha256);
    expect(row?.loOid).toEqual(expect.any(Number));
    expect(await largeObjects()).toEqual([...before, row!.loOid!].sort((a, b) => a - b));
    expect(staged()).toEqual([]);

    expect((await readFile(file.id)).equals(bytes)).toBe(true);
    const at = LO_CHUNK_BYTES - 10;
    expect((await readFile(file.id, { start: at, end: at + 20 })).equals(bytes.subarray(at, at + 20))).toBe(true);
    expect((await readFile(file.id, { start: 0, end: 1 })).equals(bytes.subarray(0, 1))).toBe(true);
    expect((await readFile(file.id, { start: bytes.length - 5, end: bytes.length })).equals(bytes.subarray(bytes.length - 5))).toBe(true);
    expect((await readFile(file.id, { start: 7, end: 7 })).length).toBe(0);
    // A range past the end reads what there is.
    expect((await readFile(file.id, { start: bytes.length - 3, end: bytes.length + 100 })).equals(bytes.subarray(bytes.length - 3))).toBe(true);
  });

  it('round-trips CJK and emoji text and an empty file', async () => {
    const text = new TextEncoder().encode('王小明 👩🏽‍💻 '.repeat(1000));
    const file = await uploadFile(owner, scope(), '文字.txt', stream(text), null);
    expect((await readFile(file.id)).toString('utf8')).toBe('王小明 👩🏽‍💻 '.repeat(1000));
    const empty = await uploadFile(owner, scope(), 'empty.txt', stream(new Uint8Array(0)), null);
    expect((await readFile(empty.id)).length).toBe(0);
  });

  it('keeps the same bytes once when two processes keep them at once', async () => {
    const bytes = randomBytes(LO_CHUNK_BYTES + 1);
    const before = await largeObjects();
    const [a, b] = [fileStore(), pgFileStore(other)];
    const [ia, ib] = [await ingest(chunks(bytes), 10_000_000), await ingest(chunks(bytes), 10_000_000)];
    const [ka, kb] = await Promise.all([a.keep(ia.tempPath, ia.sha256, ia.size), b.keep(ib.tempPath, ib.sha256, ib.size)]);
    expect(ka.loOid).toBe(kb.loOid);
    expect(await largeObjects()).toEqual([...before, ka.loOid!].sort((x, y) => x - y));
    // Either process reads it, and a later upload of the same bytes reuses it.
    expect((await collect(b.read({ sha256: ia.sha256, loOid: null }))).equals(bytes)).toBe(true);
    const file = await uploadFile(owner, scope(), 'same.bin', stream(bytes), null);
    expect((await blobRow(file.sha256))?.loOid).toBe(ka.loOid);
    expect((await largeObjects()).length).toBe(before.length + 1);
    fs.rmSync(ia.tempPath, { force: true });
    fs.rmSync(ib.tempPath, { force: true });
  });

  it('an upload whose body fails midway leaves no row, no large object and no temporary file', async () => {
    const before = await largeObjects();
    const bytes = randomBytes(3 * LO_CHUNK_BYTES);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, LO_CHUNK_BYTES));
        controller.error(new Error('client went away'));
      },
    });
    await expect(uploadFile(owner, scope(), 'cut.bin', body, null)).rejects.toThrow();
    expect(await largeObjects()).toEqual(before);
    expect(await blobRow(sha(bytes))).toBeUndefined();
    expect(staged()).toEqual([]);
  });

  it("a connection killed while it writes a large object leaves no row and no large object (the transaction's objects go with it)", async () => {
    const before = await largeObjects();
    const bytes = randomBytes(40 * LO_CHUNK_BYTES);
    const ingested = await ingest(chunks(bytes), 100_000_000);
    const crashing = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
    crashing.on('error', () => undefined); // the terminated connection's own report
    const store = pgFileStore(crashing);
    const keeping = store.keep(ingested.tempPath, ingested.sha256, ingested.size).then(
      () => 'kept',
      () => 'failed',
    );
    // Wait until it is writing chunks, then end its backend as a crash would. Only this file's database: another run
    // of the suites on the same server (CI runs two side by side) writes large objects of its own.
    const writing = `from pg_stat_activity where query like 'select lo_put%' and datname = current_database() and pid <> pg_backend_pid()`;
    await until(async () => ((await other.query(`select 1 ${writing} and state = 'active'`)).rowCount ?? 0) > 0, 10_000, 'the keep to write chunks');
    await other.query(`select pg_terminate_backend(pid) ${writing}`);
    expect(await keeping).toBe('failed');
    await crashing.end();
    expect(await largeObjects()).toEqual(before);
    expect(await blobRow(ingested.sha256)).toBeUndefined();
    fs.rmSync(ingested.tempPath, { force: true });
  });

  it('deleting the last file naming content unlinks its large object with its row; content another file names stays', async () => {
    const bytes = randomBytes(1000);
    const one = await uploadFile(owner, scope(), 'one.bin', stream(bytes), null);
    const two = await uploadFile(owner, scope(), 'two.bin', stream(bytes), null);
    const oid = (await blobRow(one.sha256))!.loOid!;
    await deleteFile(owner, one.id);
    expect(await largeObjects()).toContain(oid);
    expect((await readFile(two.id)).equals(bytes)).toBe(true);
    await deleteFile(owner, two.id);
    expect(await blobRow(one.sha256)).toBeUndefined();
    expect(await largeObjects()).not.toContain(oid);
  });

  it('the start-up sweep frees a kept object no version names (a crash between keep and the version row)', async () => {
    const ingested = await ingest(chunks(randomBytes(500)), 1_000);
    const kept = await fileStore().keep(ingested.tempPath, ingested.sha256, ingested.size);
    fs.rmSync(ingested.tempPath, { force: true });
    expect(await largeObjects()).toContain(kept.loOid);
    await sweepFiles();
    expect(await blobRow(ingested.sha256)).toBeUndefined();
    expect(await largeObjects()).not.toContain(kept.loOid);
  });
});

describe('freeing against an upload of the same bytes in another process', () => {
  it('another process freeing the content between keep and the version row: the upload keeps it again and names a live object', async () => {
    const bytes = randomBytes(LO_CHUNK_BYTES + 77);
    const real = fileStore();
    let interleaved = 0;
    const racing: FileStore = {
      ...real,
      async keep(tempPath, sha256, size) {
        const blob = await real.keep(tempPath, sha256, size);
        // The other process's sweep sees a row no version names and frees it, before this upload's transaction.
        if (interleaved++ === 0) expect(await freeElsewhere(sha256)).toBe(true);
        return blob;
      },
    };
    overrideFileStore(racing);
    try {
      const file = await uploadFile(owner, scope(), 'raced.bin', stream(bytes), null);
      expect(interleaved).toBe(2);
      const row = await blobRow(file.sha256);
      expect(await largeObjects()).toContain(row!.loOid);
      expect((await readFile(file.id)).equals(bytes)).toBe(true);
    } finally {
      overrideFileStore(undefined);
    }
    expect(staged()).toEqual([]);
  });

  it('uploads and frees of the same bytes at once never leave a version naming freed content, nor an object without a row', async () => {
    const bytes = randomBytes(2 * LO_CHUNK_BYTES);
    const sha256 = sha(bytes);
    const files: string[] = [];
    for (let round = 0; round < 12; round++) {
      const [file] = await Promise.all([uploadFile(owner, scope(), `race ${round}.bin`, stream(bytes), null), freeElsewhere(sha256), freeElsewhere(sha256)]);
      files.push(file.id);
      // Every round: the content its versions name is there, whole.
      const row = await blobRow(sha256);
      expect(await largeObjects()).toContain(row!.loOid);
      expect((await readFile(file.id)).equals(bytes)).toBe(true);
      if (round % 3 === 2) {
        // Now and then nothing names it, so the next round's free really has something to free.
        for (const id of files.splice(0)) await deleteFile(owner, id);
        expect(await blobRow(sha256)).toBeUndefined();
      }
    }
    const named = await other.query<{ n: number }>('select count(*)::int as n from pg_largeobject_metadata m where not exists (select 1 from file_blobs b where b.lo_oid = m.oid::bigint)');
    expect(named.rows[0]!.n).toBe(0);
  });
});
