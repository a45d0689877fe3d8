import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiFilePreview } from '@/lib/types/file';
import { fileVersion, ownedFile } from '@/server/files/files';
import { DOCX_TYPE, extractText } from '@/server/files/extract';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { makeDocx, makeDocxBomb, makePdf } from './fixtures';
import { preview, uploaded, type TestUser } from './helpers';

let ann: TestUser;
let teamId: string;

beforeAll(async () => {
  ann = await makeUser('ann');
  teamId = (await makeTeam(ann.id)).team.id;
});

describe('PDF and DOCX text', () => {
  it('a PDF made here is typed by its bytes (even named .txt) and previews as its text', async () => {
    const f = await uploaded(ann, 'team', teamId, 'report.txt', makePdf('Quarterly figures 42'));
    expect(f.mediaType).toBe('application/pdf');
    const pv = (await (await preview(ann, f.id)).json()) as ApiFilePreview;
    expect(pv.kind).toBe('pdf');
    expect(pv.text).toContain('Quarterly figures 42');
    expect(pv.truncated).toBe(false);
  }, 30_000);

  it('a DOCX previews as its paragraphs, CJK and emoji included', async () => {
    const f = await uploaded(ann, 'team', teamId, 'memo.docx', makeDocx(['First paragraph', '第二段 🚀']));
    expect(f.mediaType).toBe(DOCX_TYPE);
    const pv = (await (await preview(ann, f.id)).json()) as ApiFilePreview;
    expect(pv.kind).toBe('docx');
    expect(pv.text).toContain('First paragraph');
    expect(pv.text).toContain('第二段 🚀');
  }, 30_000);

  it('a decompression bomb ends the extraction process, not this one, within the time bound', async () => {
    const bounds = { timeoutMs: 15_000, memoryMb: 64 };
    const fine = await uploaded(ann, 'team', teamId, 'fine.docx', makeDocx(['within bounds']));
    const fineResult = await extractText(await fileVersion(await ownedFile(ann.id, fine.id)), 'docx', 1_000, bounds);
    expect(fineResult).toEqual({ ok: true, text: expect.stringContaining('within bounds'), truncated: false });
    const bomb = makeDocxBomb(200);
    expect(bomb.byteLength).toBeLessThan(3 * 1024 * 1024);
    const f = await uploaded(ann, 'team', teamId, 'bomb.docx', bomb);
    const version = await fileVersion(await ownedFile(ann.id, f.id));
    const rssBefore = process.memoryUsage().rss;
    const started = Date.now();
    const result = await extractText(version, 'docx', 1_000, bounds);
    expect(result.ok).toBe(false);
    expect(Date.now() - started).toBeLessThan(15_000);
    // The inflated 200 MB never entered this process.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(100 * 1024 * 1024);
  }, 60_000);

  it('bytes that only claim to be a PDF are refused with a reason, not a crash', async () => {
    const f = await uploaded(ann, 'team', teamId, 'fake.pdf', new TextEncoder().encode('%PDF-1.4\nnot really\n'));
    const version = await fileVersion(await ownedFile(ann.id, f.id));
    expect(version.mediaType).toBe('application/pdf');
    const result = await extractText(version, 'pdf', 1_000);
    expect(result.ok).toBe(false);
  }, 30_000);
});
