import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiFile, ApiFileDetail, ApiFilePreview } from '@/lib/types/file';
import { getDb, schema } from '@/server/db';
import { pushBus, type FileChange } from '@/server/push/bus';
import { conversationWith } from '../agents/helpers';
import { heldContent } from '../support/stored-content';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { PNG, brokenBody, content, detail, diff, list, preview, remove, upload, uploaded, type TestUser } from './helpers';

let ann: TestUser;
let bob: TestUser;
let teamId: string;
let chatId: string;

// The content the active store holds (the local disk, or Postgres large objects under test:pg).
const blobFiles = heldContent;
const stagedFiles = () => {
  const dir = path.join(process.env.DATA_DIR!, 'files', 'tmp');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};
const text = (s: string) => new TextEncoder().encode(s);

beforeAll(async () => {
  ann = await makeUser('ann');
  bob = await makeUser('bob');
  teamId = (await makeTeam(ann.id)).team.id;
  chatId = (await conversationWith(ann.id)).conversation.id;
});

describe('upload, list, read', () => {
  it('stores a team file, lists it newest first, and serves its bytes as a safe attachment', async () => {
    const first = await uploaded(ann, 'team', teamId, 'notes.md', text('# Notes\n\nhello\n'));
    expect(first).toMatchObject({ name: 'notes.md', size: 15, mediaType: 'text/plain', revision: 1, author: { kind: 'person' }, runId: null });
    expect(first.sha256).toMatch(/^[0-9a-f]{64}$/);
    const second = await uploaded(ann, 'team', teamId, 'later.txt', text('later'));
    const listed = (await (await list(ann, 'team', teamId)).json()) as { files: ApiFile[] };
    expect(listed.files.map((f) => f.id).slice(0, 2)).toEqual([second.id, first.id]);

    const res = await content(ann, first.id);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('# Notes\n\nhello\n');
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="notes.md"; filename*=UTF-8''notes.md`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain('sandbox');

    const pv = (await (await preview(ann, first.id)).json()) as ApiFilePreview;
    expect(pv).toEqual({ kind: 'markdown', text: '# Notes\n\nhello\n', truncated: false });
  });

  it('a chat has files of its own, apart from the team workspace', async () => {
    const f = await uploaded(ann, 'conversation', chatId, 'chat.txt', text('chat file'));
    const chat = (await (await list(ann, 'conversation', chatId)).json()) as { files: ApiFile[] };
    expect(chat.files.map((x) => x.id)).toEqual([f.id]);
    const team = (await (await list(ann, 'team', teamId)).json()) as { files: ApiFile[] };
    expect(team.files.map((x) => x.id)).not.toContain(f.id);
  });

  it('decides the type by content: a PNG named .txt is an image, served inline only when asked and only as an image', async () => {
    const f = await uploaded(ann, 'team', teamId, 'photo.txt', PNG);
    expect(f.mediaType).toBe('image/png');
    const attachment = await content(ann, f.id);
    expect(attachment.headers.get('content-disposition')).toMatch(/^attachment;/);
    const inline = await content(ann, f.id, '?inline=1');
    expect(inline.headers.get('content-disposition')).toMatch(/^inline;/);
    expect(inline.headers.get('content-type')).toBe('image/png');
    expect(inline.headers.get('x-content-type-options')).toBe('nosniff');
    expect(((await (await preview(ann, f.id)).json()) as ApiFilePreview).kind).toBe('image');
  });

  it('never serves HTML or SVG as themselves: a page named .html is text/plain, an attachment even with inline=1', async () => {
    const html = await uploaded(ann, 'team', teamId, 'page.html', text('<html><script>alert(1)</script></html>'));
    const svg = await uploaded(ann, 'team', teamId, 'x.svg', text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'));
    for (const f of [html, svg]) {
      const res = await content(ann, f.id, '?inline=1');
      expect(res.headers.get('content-type')).toMatch(/^(text\/plain|application\/octet-stream)/);
      expect(res.headers.get('content-disposition')).toMatch(/^attachment;/);
    }
  });

  it('binary content that is not a known type is application/octet-stream with a binary preview', async () => {
    const f = await uploaded(ann, 'team', teamId, 'blob.bin', Uint8Array.from([0, 1, 2, 255, 254, 0, 7]));
    expect(f.mediaType).toBe('application/octet-stream');
    expect(((await (await preview(ann, f.id)).json()) as ApiFilePreview)).toEqual({ kind: 'binary', truncated: false });
  });

  it('names a code file for highlighting by its extension; the type stays text', async () => {
    const f = await uploaded(ann, 'team', teamId, 'main.ts', text('export const x = 1;\n'));
    expect(await (await preview(ann, f.id)).json()).toEqual({ kind: 'code', language: 'typescript', text: 'export const x = 1;\n', truncated: false });
  });
});

describe('names', () => {
  it('normalizes to NFC, drops controls and bidi overrides, replaces separators, and suffixes duplicates', async () => {
    const nfd = 'Cafe\u0301.md';
    const a = await uploaded(ann, 'team', teamId, nfd, text('a'));
    expect(a.name).toBe('Café.md');
    expect(a.name.normalize('NFC')).toBe(a.name);
    const b = await uploaded(ann, 'team', teamId, 'Café.md', text('b'));
    expect(b.name).toBe('Café (2).md');
    const c = await uploaded(ann, 'team', teamId, 'Café.md', text('c'));
    expect(c.name).toBe('Café (3).md');
    expect((await uploaded(ann, 'team', teamId, '../../etc/passwd', text('x'))).name).toBe('.._.._etc_passwd');
    expect((await uploaded(ann, 'team', teamId, 'a\\b:c', text('x'))).name).toBe('a_b_c');
    expect((await uploaded(ann, 'team', teamId, 'evil\u202Etxt.exe\u0000\u0007', text('x'))).name).toBe('eviltxt.exe');
    expect((await uploaded(ann, 'team', teamId, '報告書 👩‍👩‍👧.md', text('x'))).name).toBe('報告書 👩‍👩‍👧.md');
  });

  it('cuts a long name to the bound keeping its extension, in ASCII, CJK and emoji (never half a character)', async () => {
    const { maxChars, maxBytes } = (await import('@/lib/limits')).LIMITS.files.name;
    for (const unit of ['a', '報', '😀']) {
      const atLimit = unit.repeat(Math.min(maxChars, Math.floor(maxBytes / Buffer.byteLength(unit))) - 3) + '.md';
      const kept = await uploaded(ann, 'team', teamId, atLimit, text('x'));
      expect(kept.name).toBe(atLimit);
      const over = await uploaded(ann, 'team', teamId, unit + atLimit, text('x'));
      expect(Array.from(over.name).length).toBeLessThanOrEqual(maxChars);
      expect(Buffer.byteLength(over.name)).toBeLessThanOrEqual(maxBytes);
      expect(over.name.endsWith('.md')).toBe(true);
      expect(over.name).not.toMatch(/\uFFFD/);
      expect(over.name).not.toBe(kept.name);
    }
  });

  it('refuses an empty name or none at all, naming the field', async () => {
    for (const name of ['', '   ', '\u0000\u0001', null]) {
      const res = await upload(ann, 'team', teamId, name, text('x'));
      expect(res.status).toBe(422);
      expect(Object.keys(((await res.json()) as { error: { fields: Record<string, string> } }).error.fields)).toEqual(['name']);
    }
  });
});

describe('ownership', () => {
  it('another owner gets 404 on every route, and nothing of theirs changes', async () => {
    const f = await uploaded(ann, 'team', teamId, 'secret.txt', text('secret'));
    expect((await list(bob, 'team', teamId)).status).toBe(404);
    expect((await list(bob, 'conversation', chatId)).status).toBe(404);
    expect((await upload(bob, 'team', teamId, 'x.txt', text('x'))).status).toBe(404);
    expect((await upload(bob, 'conversation', chatId, 'x.txt', text('x'))).status).toBe(404);
    expect((await detail(bob, f.id)).status).toBe(404);
    expect((await content(bob, f.id)).status).toBe(404);
    expect((await preview(bob, f.id)).status).toBe(404);
    expect((await diff(bob, f.id, '?from=1&to=1')).status).toBe(404);
    expect((await remove(bob, f.id)).status).toBe(404);
    expect((await detail(ann, f.id)).status).toBe(200);
    const names = ((await (await list(ann, 'team', teamId)).json()) as { files: ApiFile[] }).files.map((x) => x.name);
    expect(names).not.toContain('x.txt');
  });

  it('a missing revision is 404 and a bad one 422', async () => {
    const f = await uploaded(ann, 'team', teamId, 'rev.txt', text('r'));
    expect((await content(ann, f.id, '?revision=2')).status).toBe(404);
    expect((await content(ann, f.id, '?revision=0')).status).toBe(422);
    expect((await content(ann, f.id, '?revision=abc')).status).toBe(422);
  });
});

describe('content store', () => {
  it('stores identical content once, and frees it only when no file names it', async () => {
    const body = text(`shared ${crypto.randomUUID()}`);
    const a = await uploaded(ann, 'team', teamId, 'one.txt', body);
    const b = await uploaded(ann, 'conversation', chatId, 'two.txt', body);
    expect(b.sha256).toBe(a.sha256);
    expect((await blobFiles()).filter((n) => n === a.sha256)).toHaveLength(1);
    expect((await remove(ann, a.id)).status).toBe(204);
    expect(await blobFiles()).toContain(a.sha256);
    expect((await content(ann, b.id)).status).toBe(200);
    expect((await remove(ann, b.id)).status).toBe(204);
    expect(await blobFiles()).not.toContain(a.sha256);
    expect(await getDb().select().from(schema.fileBlobs)).not.toContainEqual(expect.objectContaining({ sha256: a.sha256 }));
    expect((await detail(ann, b.id)).status).toBe(404);
  });

  it('a client that disconnects midway leaves no row, no content and no temporary file', async () => {
    const before = (await getDb().select().from(schema.files)).length;
    const blobsBefore = (await blobFiles()).length;
    const res = await upload(ann, 'team', teamId, 'cut.txt', brokenBody(text('x'.repeat(100_000))));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('upload_incomplete');
    expect((await getDb().select().from(schema.files)).length).toBe(before);
    expect((await blobFiles()).length).toBe(blobsBefore);
    expect(stagedFiles()).toEqual([]);
  });
});

describe('versions, diff, delete, push', () => {
  it('lists versions, diffs text revisions and refuses binary ones with 422', async () => {
    const { commitContent } = await import('@/server/files/files');
    const { ingest } = await import('@/server/files/ingest');
    const { resolveScope } = await import('@/server/files/scope');
    const f = await uploaded(ann, 'team', teamId, 'draft.md', text('one\ntwo\nthree\n'));
    const scope = await resolveScope(ann.id, { kind: 'team', id: teamId });
    const one = async function* () {
      yield text('one\n2\nthree\n');
    };
    await commitContent(scope, { kind: 'version', fileId: f.id, expectedRevision: 1 }, await ingest(one(), 1_000), { kind: 'member', memberId: 'm1', name: 'Research' }, 'run-1');
    const d = (await (await detail(ann, f.id)).json()) as ApiFileDetail;
    expect(d.file).toMatchObject({ revision: 2, author: { kind: 'member', memberId: 'm1', name: 'Research' }, runId: 'run-1' });
    expect(d.versions.map((v) => v.revision)).toEqual([2, 1]);
    const body = (await (await diff(ann, f.id, '?from=1&to=2')).json()) as { diff: string };
    expect(body.diff).toContain('-two');
    expect(body.diff).toContain('+2');
    expect(await (await content(ann, f.id, '?revision=1')).text()).toBe('one\ntwo\nthree\n');

    const png = await uploaded(ann, 'team', teamId, 'img.png', PNG);
    const res = await diff(ann, png.id, '?from=1&to=1');
    expect(res.status).toBe(422);
  });

  it('announces created, updated and deleted files on the bus after commit, with the scope', async () => {
    const heard: FileChange[] = [];
    const listener = (c: FileChange) => heard.push(c);
    pushBus().on('file', listener);
    try {
      const f = await uploaded(ann, 'team', teamId, 'pushed.txt', text('p'));
      await remove(ann, f.id);
      await new Promise((resolve) => setImmediate(resolve));
      expect(heard.filter((c) => c.fileId === f.id)).toEqual([
        { ownerId: ann.id, fileId: f.id, teamId, conversationId: null, revision: 1 },
        { ownerId: ann.id, fileId: f.id, teamId, conversationId: null, revision: 1, deleted: true },
      ]);
    } finally {
      pushBus().off('file', listener);
    }
  });
});

describe('cross-site', () => {
  it('refuses a cookie upload or delete from another origin before anything is stored', async () => {
    const { cookieFor } = await import('../security/support');
    const cookie = await cookieFor(ann);
    const before = (await getDb().select().from(schema.files)).length;
    const res = await upload({ auth: { cookie } }, 'team', teamId, 'csrf.txt', text('x'), { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    const f = await uploaded(ann, 'team', teamId, 'keep.txt', text('k'));
    expect((await remove({ auth: { cookie } }, f.id, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await getDb().select().from(schema.files)).length).toBe(before + 1);
    // The app's own page may upload with the cookie: same origin, raw bytes as application/octet-stream.
    const own = await upload({ auth: { cookie } }, 'team', teamId, 'own.txt', text('mine'), { origin: 'http://localhost' });
    expect(own.status).toBe(201);
    // A form can only send text/plain: refused.
    const form = await upload({ auth: { cookie } }, 'team', teamId, 'form.txt', text('x'), { origin: 'http://localhost', 'content-type': 'text/plain' });
    expect(form.status).toBe(403);
  });
});
