import { beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import type { SkillSummary, SkillView } from '@/lib/types/skill';
import { createAgent, updateAgent } from '@/server/agents/catalog';
import { getDb, schema } from '@/server/db';
import { AppError } from '@/server/http/errors';
import { storedContent } from '../support/stored-content';
import { makeUser } from '../support/users';
import { create, created, file, get, list, patch, remove, type TestUser } from './helpers';

let ann: TestUser;
let bob: TestUser;

beforeAll(async () => {
  ann = await makeUser('ann');
  bob = await makeUser('bob');
});

const rowsOf = async (skillId: string) => (await getDb().select().from(schema.skillFiles)).filter((r) => r.skillId === skillId);

describe('skills written in the app', () => {
  it('creates, lists, reads, edits and deletes a skill; content lives in the file store by SHA-256', async () => {
    const skill = await created(ann, { name: 'Release notes', description: 'Write release notes from a changelog.', body: '# How\n\nGroup by area.\n' });
    expect(skill).toMatchObject({ name: 'Release notes', description: 'Write release notes from a changelog.', body: '# How\n\nGroup by area.\n', files: [] });
    expect(skill.hash).toMatch(/^[0-9a-f]{64}$/);
    const [md] = await rowsOf(skill.id);
    expect(md).toMatchObject({ path: 'SKILL.md', size: Buffer.byteLength(skill.body) });
    expect((await storedContent(md!.sha256))?.toString('utf8')).toBe(skill.body);

    const listed = (await (await list(ann)).json()) as SkillSummary[];
    expect(listed.map((s) => s.id)).toContain(skill.id);
    expect(listed[0]).not.toHaveProperty('body');

    const body = (await (await file(ann, skill.id, 'SKILL.md')).json()) as { text: string };
    expect(body.text).toBe(skill.body);

    const edited = (await (await patch(ann, skill.id, { body: 'New body 新しい 🚀' })).json()) as SkillView;
    expect(edited.body).toBe('New body 新しい 🚀');
    expect(edited.hash).not.toBe(skill.hash);
    // The old body's content is freed once nothing names it.
    expect(await storedContent(md!.sha256)).toBeNull();
    // The same content back gives the same hash: the hash is of the content, not of the edit.
    const back = (await (await patch(ann, skill.id, { body: skill.body })).json()) as SkillView;
    expect(back.hash).toBe(skill.hash);

    expect((await remove(ann, skill.id)).status).toBe(204);
    expect((await get(ann, skill.id)).status).toBe(404);
    expect(await rowsOf(skill.id)).toEqual([]);
  });

  it('refuses a name the account already uses, regardless of case', async () => {
    await created(ann, { name: 'Unique One', description: 'd', body: '' });
    const res = await create(ann, { name: 'unique one', description: 'd', body: '' });
    expect(res.status).toBe(409);
    // The skill that holds the name, as it is written, not the refused spelling.
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('You already have a skill named "Unique One"');
    // Another account may use it.
    expect((await create(bob, { name: 'Unique One', description: 'd', body: '' })).status).toBe(201);
  });

  it('keeps one copy of content two skills share, and keeps it while either names it', async () => {
    const a = await created(ann, { name: 'Shared A', description: 'd', body: 'same body' });
    const b = await created(ann, { name: 'Shared B', description: 'd', body: 'same body' });
    const [ra] = await rowsOf(a.id);
    const [rb] = await rowsOf(b.id);
    expect(ra!.sha256).toBe(rb!.sha256);
    expect((await remove(ann, a.id)).status).toBe(204);
    expect(await storedContent(rb!.sha256)).not.toBeNull();
    expect(((await (await get(ann, b.id)).json()) as SkillView).body).toBe('same body');
  });

  for (const [label, unit] of [
    ['ASCII', 'a'],
    ['CJK', '技'],
    ['emoji', '🧪'],
  ] as const) {
    it(`takes a name, description and body at their limits in ${label}, and refuses each one past (422 naming the field)`, async () => {
      const fit = (bound: { maxChars: number; maxBytes: number }) => Math.min(bound.maxChars, Math.floor(bound.maxBytes / Buffer.byteLength(unit)));
      const fields = { name: unit.repeat(fit(LIMITS.skills.name)), description: unit.repeat(fit(LIMITS.skills.description)), body: unit.repeat(fit(LIMITS.skills.body)) };
      const res = await create(ann, fields);
      expect(res.status).toBe(201);
      for (const field of ['name', 'description', 'body'] as const) {
        const over = await create(ann, { ...fields, name: `${label}-${field}`, [field]: fields[field] + unit });
        expect(over.status).toBe(422);
        const err = (await over.json()) as { error: { fields: Record<string, string> } };
        expect(Object.keys(err.error.fields)).toEqual([field]);
      }
    });
  }

  it('refuses unknown fields and an empty patch', async () => {
    expect((await create(ann, { name: 'x1', description: 'd', body: '', extra: 1 })).status).toBe(422);
    const s = await created(ann, { name: 'Patch me', description: 'd', body: '' });
    expect((await patch(ann, s.id, {})).status).toBe(422);
  });
});

describe('ownership', () => {
  it('another account gets 404 on every route of a skill, and changes nothing', async () => {
    const s = await created(ann, { name: 'Private', description: 'mine', body: 'secret steps' });
    expect((await get(bob, s.id)).status).toBe(404);
    expect((await file(bob, s.id, 'SKILL.md')).status).toBe(404);
    expect((await patch(bob, s.id, { body: 'hijacked' })).status).toBe(404);
    expect((await remove(bob, s.id)).status).toBe(404);
    expect(((await (await list(bob)).json()) as SkillSummary[]).map((x) => x.id)).not.toContain(s.id);
    // What must not happen: bob's calls changing ann's skill.
    expect(((await (await get(ann, s.id)).json()) as SkillView).body).toBe('secret steps');
  });

  it('a missing file of one’s own skill is a 404 too', async () => {
    const s = await created(ann, { name: 'No files', description: 'd', body: '' });
    expect((await file(ann, s.id, 'missing.md')).status).toBe(404);
  });

  it('signed out: 401', async () => {
    expect((await list({ auth: {} })).status).toBe(401);
  });
});

describe('on an agent', () => {
  it('an agent lists its owner\'s skills; another owner\'s skill id is refused naming the field, and nothing is written', async () => {
    const mine = await created(ann, { name: 'Agent skill', description: 'd', body: 'b' });
    const theirs = await created(bob, { name: 'Bob skill', description: 'd', body: 'b' });
    const agent = await createAgent(ann.id, { name: 'With skills', skills: [mine.id] });
    expect(agent.skills).toEqual([mine.id]);
    const refused = await createAgent(ann.id, { name: 'Stealing', skills: [theirs.id] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).status).toBe(422);
    expect((refused as AppError).fields).toEqual({ skills: `Not one of your skills: ${theirs.id}` });
    const patched = await updateAgent(ann.id, agent.id, { skills: [mine.id, theirs.id] }).catch((e: unknown) => e);
    expect((patched as AppError).fields).toHaveProperty('skills');
    expect((await getDb().select().from(schema.agents)).find((a) => a.id === agent.id)!.skills).toEqual([mine.id]);
  });

  it('a skill an agent uses can\'t be deleted: 409 naming the agent; detached, it can', async () => {
    const s = await created(ann, { name: 'In use', description: 'd', body: 'b' });
    const agent = await createAgent(ann.id, { name: 'User of it', skills: [s.id] });
    const res = await remove(ann, s.id);
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'skill_in_use', message: expect.stringContaining('"User of it"') });
    expect((await get(ann, s.id)).status).toBe(200);
    await updateAgent(ann.id, agent.id, { skills: [] });
    expect((await remove(ann, s.id)).status).toBe(204);
  });

  it('at most LIMITS.skills.perAgent skills, each once', async () => {
    const s = await created(ann, { name: 'Twice', description: 'd', body: '' });
    const twice = await createAgent(ann.id, { name: 'Twice agent', skills: [s.id, s.id] }).catch((e: unknown) => e);
    expect((twice as AppError).fields).toHaveProperty('skills');
    const many = await createAgent(ann.id, { name: 'Many', skills: Array.from({ length: LIMITS.skills.perAgent + 1 }, (_, i) => `id-${i}`) }).catch((e: unknown) => e);
    expect((many as AppError).fields?.skills).toMatch(/^At most/);
  });
});
