import { beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import type { SkillView } from '@/lib/types/skill';
import { getDb, schema } from '@/server/db';
import { makeUser } from '../support/users';
import { file, importZip, skillMd, zipOf, zipSync, type TestUser } from './helpers';

let ann: TestUser;
let bob: TestUser;
beforeAll(async () => {
  ann = await makeUser('ann');
  bob = await makeUser('bob');
});

const enc = (s: string) => new TextEncoder().encode(s);
const skillCount = async () => (await getDb().select().from(schema.skills)).length;
async function refused(zip: Uint8Array, status = 422): Promise<string> {
  const before = await skillCount();
  const res = await importZip(ann, zip);
  expect(res.status).toBe(status);
  // What must not happen: a refused archive leaving a skill behind.
  expect(await skillCount()).toBe(before);
  return ((await res.json()) as { error: { message: string } }).error.message;
}

describe('importing a skill pack as a ZIP', () => {
  it('imports SKILL.md and its text resources, from the top or from one top folder', async () => {
    const res = await importZip(ann, zipOf({ 'pdf/SKILL.md': skillMd('pdf', 'Fill PDF forms', '# Steps\nSee forms.md\n'), 'pdf/forms.md': 'Field rules 规则 ✅', 'pdf/scripts/check.py': 'print(1)\n' }));
    expect(res.status).toBe(201);
    const skill = (await res.json()) as SkillView;
    expect(skill).toMatchObject({ name: 'pdf', description: 'Fill PDF forms', body: '# Steps\nSee forms.md\n' });
    expect(skill.files.map((f) => f.path).sort()).toEqual(['forms.md', 'scripts/check.py']);
    expect(((await (await file(ann, skill.id, 'forms.md')).json()) as { text: string }).text).toBe('Field rules 规则 ✅');
    expect(((await (await file(ann, skill.id, 'scripts/check.py')).json()) as { text: string }).text).toBe('print(1)\n');
    // Another account can't read the resource.
    expect((await file(bob, skill.id, 'forms.md')).status).toBe(404);
    const top = await importZip(ann, zipOf({ 'SKILL.md': skillMd('top-level', 'd', 'b') }));
    expect(top.status).toBe(201);
  });

  it('refuses an archive without SKILL.md, or with a bad one', async () => {
    expect(await refused(zipOf({ 'README.md': 'no skill' }))).toMatch(/no SKILL.md/);
    await refused(zipOf({ 'SKILL.md': '# no front matter' }));
  });

  it('refuses path traversal and absolute paths before anything is stored', async () => {
    expect(await refused(zipOf({ 'SKILL.md': skillMd('t1', 'd', ''), '../evil.md': 'x' }))).toMatch(/leaves the skill's folder/);
    expect(await refused(zipOf({ 'SKILL.md': skillMd('t2', 'd', ''), 'a/../../evil.md': 'x' }))).toMatch(/leaves/);
    expect(await refused(zipOf({ 'SKILL.md': skillMd('t3', 'd', ''), '/etc/passwd': 'x' }))).toMatch(/absolute/);
    expect(await refused(zipOf({ 'SKILL.md': skillMd('t4', 'd', ''), 'C:/x.md': 'x' }))).toMatch(/absolute/);
    expect(await refused(zipOf({ 'SKILL.md': skillMd('t5', 'd', ''), 'a\\..\\x.md': 'x' }))).toMatch(/absolute/);
  });

  it('refuses a symlink entry (a Unix link mode in its attributes)', async () => {
    const zip = zipSync({ 'SKILL.md': enc(skillMd('link', 'd', '')), 'passwd': [enc('/etc/passwd'), { os: 3, attrs: (0o120777 << 16) >>> 0 }] });
    expect(await refused(zip)).toMatch(/link or special file/);
  });

  it('takes LIMITS.skills.entries entries and refuses one more', async () => {
    const files = (n: number, name: string) => Object.fromEntries([['SKILL.md', skillMd(name, 'd', '')], ...Array.from({ length: n - 1 }, (_, i) => [`r/${i}.md`, `${i}`])]);
    expect((await importZip(ann, zipOf(files(LIMITS.skills.entries, 'many-ok')))).status).toBe(201);
    expect(await refused(zipOf(files(LIMITS.skills.entries + 1, 'many-over')))).toMatch(/entries/);
  });

  it('takes a resource at LIMITS.skills.fileBytes and refuses one byte more', async () => {
    const at = 'x'.repeat(LIMITS.skills.fileBytes);
    expect((await importZip(ann, zipOf({ 'SKILL.md': skillMd('big-ok', 'd', ''), 'big.txt': at }))).status).toBe(201);
    expect(await refused(zipOf({ 'SKILL.md': skillMd('big-over', 'd', ''), 'big.txt': `${at}x` }))).toMatch(/larger than/);
  });

  it('stops a zip bomb while inflating: sizes that lie in the directory are caught by counting', async () => {
    // 8 MiB of zeros compresses to a few KiB; the directory's declared size is then rewritten to claim 10 bytes.
    const zip = zipSync({ 'SKILL.md': enc(skillMd('bomb', 'd', '')), 'bomb.txt': new Uint8Array(8 * 1024 * 1024) });
    expect(zip.byteLength).toBeLessThan(LIMITS.skills.zipBytes);
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    for (let i = 0; i + 46 < zip.byteLength; i++) {
      if (view.getUint32(i, true) === 0x02014b50 && new TextDecoder().decode(zip.subarray(i + 46, i + 46 + view.getUint16(i + 28, true))) === 'bomb.txt') view.setUint32(i + 24, 10, true);
    }
    expect(await refused(zip)).toMatch(/larger than|inflates to more/);
    // Many files each under the per-file bound, together past the inflated total.
    const each = 'y'.repeat(LIMITS.skills.fileBytes - 1);
    const many = Object.fromEntries([['SKILL.md', skillMd('bomb2', 'd', '')], ...Array.from({ length: Math.ceil(LIMITS.skills.inflatedBytes / each.length) + 1 }, (_, i) => [`p${i}.txt`, each])]);
    expect(await refused(zipOf(many))).toMatch(/inflates to more/);
  });

  it('imports an archive of exactly LIMITS.skills.zipBytes (stored, so its size is its files plus their headers)', async () => {
    // Eight resources close to the per-file bound, then the last ones grown until the archive is the limit to the byte.
    const lengths = Array.from({ length: 8 }, () => LIMITS.skills.fileBytes - 4096);
    const build = () =>
      zipSync({ 'SKILL.md': enc(skillMd('at-limit', 'd', 'b')), ...Object.fromEntries(lengths.map((n, i) => [`r${i}.txt`, enc('x'.repeat(n))])) }, { level: 0 });
    let diff = LIMITS.skills.zipBytes - build().byteLength;
    for (let i = lengths.length - 1; diff > 0 && i >= 0; i--) {
      const grow = Math.min(diff, LIMITS.skills.fileBytes - lengths[i]!);
      lengths[i]! += grow;
      diff -= grow;
    }
    const zip = build();
    expect(zip.byteLength).toBe(LIMITS.skills.zipBytes);
    const res = await importZip(ann, zip);
    expect(res.status).toBe(201);
    const skill = (await res.json()) as SkillView;
    expect(skill.name).toBe('at-limit');
    const last = await file(ann, skill.id, 'r7.txt');
    expect(last.status).toBe(200);
    expect(((await last.json()) as { text: string }).text).toBe('x'.repeat(lengths[7]!));
  });

  it('refuses a body past LIMITS.skills.zipBytes with 413, and a non-ZIP body', async () => {
    const big = new Uint8Array(LIMITS.skills.zipBytes + 1);
    crypto.getRandomValues(big.subarray(0, 65536));
    await refused(big, 413);
    expect(await refused(enc('not a zip at all, just text padding padding padding'))).toMatch(/Not a ZIP/);
    expect((await importZip(ann, zipOf({ 'SKILL.md': skillMd('typed', 'd', '') }), 'text/plain')).status).toBe(415);
  });

  it('refuses binary resources (a skill\'s files are text)', async () => {
    expect(await refused(zipOf({ 'SKILL.md': skillMd('bin', 'd', ''), 'x.bin': Uint8Array.from([0xff, 0xfe, 0x00, 0x01]) }))).toMatch(/not UTF-8 text|not text/);
  });
});
