import 'server-only';
import crypto from 'node:crypto';
import { and, asc, eq, inArray, ne } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import { skillCreateSchema, skillPatchSchema, type SkillCreate, type SkillPatch } from '@/lib/schemas/skill';
import { controlCharacter, measureText } from '@/lib/text-bounds';
import type { SkillSummary, SkillView } from '@/lib/types/skill';
import { canonicalJson, sha256Hex } from '@/server/agents/assembly/fingerprint';
import { getDb, schema, writeTx, type Db } from '@/server/db';
import type { SkillRow } from '@/server/db/schema';
import { sweepContent } from '@/server/files/sweep';
import { AppError, notFound } from '@/server/http/errors';
import { parseOrThrow } from '@/server/http/validation';
import { keepSkillFiles, readContentText, recordBlobs, type KeptText } from './content';
import { parseSkillMd } from './parse';
import { readZip } from './zip';

/** The file that holds a skill's body (its name, description and the rest of SKILL.md are the skill's row). */
export const SKILL_MD = 'SKILL.md';

export type SkillFileRow = typeof schema.skillFiles.$inferSelect;
const encoder = new TextEncoder();
const nameKey = (name: string) => name.normalize('NFC').toLowerCase();
const nameTaken = (name: string) => new AppError(409, 'name_taken', `You already have a skill named "${name}"`, { name: 'Already used by another of your skills' });
const invalidPack = (message: string, field = 'zip') => new AppError(422, 'invalid_skill_zip', message, { [field]: message });

/** The pack's content hash: name, description and each file's path and SHA-256 (the body is SKILL.md's). */
export function packHash(name: string, description: string, files: ReadonlyArray<{ path: string; sha256: string }>): string {
  const list = files.map((f) => [f.path, f.sha256]).sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
  return sha256Hex(canonicalJson({ name, description, files: list }));
}

async function filesOf(skillIds: readonly string[], db: Db = getDb()): Promise<SkillFileRow[]> {
  if (!skillIds.length) return [];
  return db.select().from(schema.skillFiles).where(inArray(schema.skillFiles.skillId, [...skillIds])).orderBy(asc(schema.skillFiles.path));
}

function summary(row: SkillRow, files: readonly SkillFileRow[]): SkillSummary {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    hash: row.hash,
    files: files.filter((f) => f.skillId === row.id && f.path !== SKILL_MD).map((f) => ({ path: f.path, size: f.size })),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The owner's skill row, or null (another owner's id answers exactly like a missing one). */
export async function findSkill(ownerId: string, id: string, db: Db = getDb()): Promise<SkillRow | null> {
  return (await db.select().from(schema.skills).where(and(eq(schema.skills.id, id), eq(schema.skills.ownerId, ownerId))).limit(1))[0] ?? null;
}

export async function listSkills(ownerId: string): Promise<SkillSummary[]> {
  const rows = await getDb().select().from(schema.skills).where(eq(schema.skills.ownerId, ownerId)).orderBy(asc(schema.skills.nameKey));
  const files = await filesOf(rows.map((r) => r.id));
  return rows.map((r) => summary(r, files));
}

/** The owner's skills among these ids (for an agent's prompt and read_skill), in the order given. */
export async function ownSkills(ownerId: string, ids: readonly string[]): Promise<SkillRow[]> {
  if (!ids.length) return [];
  const rows = await getDb().select().from(schema.skills).where(and(eq(schema.skills.ownerId, ownerId), inArray(schema.skills.id, [...ids])));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is SkillRow => !!r);
}

export async function getSkill(ownerId: string, id: string): Promise<SkillView> {
  const row = await findSkill(ownerId, id);
  if (!row) throw notFound('Skill');
  const files = await filesOf([id]);
  const md = files.find((f) => f.path === SKILL_MD);
  return { ...summary(row, files), body: md ? await readContentText(md.sha256) : '' };
}

/** A resource file's text (or SKILL.md's body), 404 for a path the skill doesn't hold. */
export async function readSkillFile(ownerId: string, id: string, path: string): Promise<{ skill: SkillRow; path: string; text: string }> {
  const skill = await findSkill(ownerId, id);
  if (!skill) throw notFound('Skill');
  const [file] = await getDb()
    .select()
    .from(schema.skillFiles)
    .where(and(eq(schema.skillFiles.skillId, id), eq(schema.skillFiles.path, path)))
    .limit(1);
  if (!file) throw notFound('Skill file');
  return { skill, path, text: await readContentText(file.sha256) };
}

type PackFile = { path: string; bytes: Uint8Array };

/** Write a skill's row and files (a new one, or replacing one's); the old content is swept once nothing names it. */
async function savePack(ownerId: string, fields: { name: string; description: string }, files: PackFile[], existingId?: string): Promise<SkillView> {
  let replaced: string[] = [];
  const id = existingId ?? crypto.randomUUID();
  await keepSkillFiles(files, (kept: KeptText[]) =>
    writeTx(async (tx) => {
      const key = nameKey(fields.name);
      const [clash] = await tx
        .select({ name: schema.skills.name })
        .from(schema.skills)
        .where(and(eq(schema.skills.ownerId, ownerId), eq(schema.skills.nameKey, key), ...(existingId ? [ne(schema.skills.id, existingId)] : [])))
        .limit(1);
      // The skill that holds the name, as it is written, not the refused spelling.
      if (clash) throw nameTaken(clash.name);
      await recordBlobs(tx, kept);
      const hash = packHash(fields.name, fields.description, kept);
      const now = new Date();
      if (existingId) {
        const current = await findSkill(ownerId, existingId, tx);
        if (!current) throw notFound('Skill');
        replaced = (await filesOf([existingId], tx)).map((f) => f.sha256);
        await tx.update(schema.skills).set({ name: fields.name, nameKey: key, description: fields.description, hash, updatedAt: now }).where(eq(schema.skills.id, existingId));
        await tx.delete(schema.skillFiles).where(eq(schema.skillFiles.skillId, existingId));
      } else {
        const count = await tx.select({ id: schema.skills.id }).from(schema.skills).where(eq(schema.skills.ownerId, ownerId));
        if (count.length >= LIMITS.skills.perAccount) throw new AppError(409, 'skill_limit', `An account holds at most ${LIMITS.skills.perAccount} skills`);
        await tx.insert(schema.skills).values({ id, ownerId, name: fields.name, nameKey: key, description: fields.description, hash, createdAt: now, updatedAt: now });
      }
      for (const k of kept) await tx.insert(schema.skillFiles).values({ skillId: id, ownerId, path: k.path, sha256: k.sha256, size: k.size });
    }),
  );
  // Content the old version named and nothing names now is freed (sweepContent keeps whatever is still named).
  if (replaced.length) await sweepContent([...new Set(replaced)]);
  return getSkill(ownerId, id);
}

/** A skill written in the app (or POSTed as JSON): no resource files. */
export async function createSkill(ownerId: string, input: unknown): Promise<SkillView> {
  const data: SkillCreate = parseOrThrow(skillCreateSchema, input);
  return savePack(ownerId, data, [{ path: SKILL_MD, bytes: encoder.encode(data.body) }]);
}

/** Change a skill's name, description or body; its resource files stay. */
export async function updateSkill(ownerId: string, id: string, input: unknown): Promise<SkillView> {
  const patch: SkillPatch = parseOrThrow(skillPatchSchema, input);
  const current = await getSkill(ownerId, id);
  const files = await filesOf([id]);
  const resources: PackFile[] = await Promise.all(
    files.filter((f) => f.path !== SKILL_MD).map(async (f) => ({ path: f.path, bytes: encoder.encode(await readContentText(f.sha256)) })),
  );
  return savePack(
    ownerId,
    { name: patch.name ?? current.name, description: patch.description ?? current.description },
    [{ path: SKILL_MD, bytes: encoder.encode(patch.body ?? current.body) }, ...resources],
    id,
  );
}

/**
 * Import a skill pack from a ZIP: SKILL.md at the top, or inside one top folder (which is then dropped from every
 * path), and UTF-8 text resources beside it. `replaceId`: not offered; an import always makes a new skill.
 */
export async function importSkillZip(ownerId: string, zip: Uint8Array): Promise<SkillView> {
  let entries = readZip(zip);
  if (!entries.some((e) => e.path === SKILL_MD)) {
    const tops = new Set(entries.map((e) => e.path.split('/')[0]));
    const [top] = [...tops];
    if (tops.size === 1 && entries.some((e) => e.path === `${top}/${SKILL_MD}`)) entries = entries.map((e) => ({ ...e, path: e.path.slice(top!.length + 1) }));
    else throw invalidPack('The archive has no SKILL.md at its top or in its one top folder');
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const texts = entries.map((e) => {
    let text: string;
    try {
      text = decoder.decode(e.bytes);
    } catch {
      throw invalidPack(`"${e.path.slice(0, 100)}" is not UTF-8 text; a skill's files are text`);
    }
    if (text.includes('\u0000')) throw invalidPack(`"${e.path.slice(0, 100)}" is not text`);
    return { path: e.path.normalize('NFC'), text };
  });
  for (const t of texts) {
    const m = measureText(t.path, LIMITS.skills.path);
    if (m.over) throw invalidPack(`A path is longer than ${LIMITS.skills.path.maxChars} characters`);
    if (controlCharacter(t.path)) throw invalidPack(`"${t.path.slice(0, 100)}" has a control character`);
  }
  if (new Set(texts.map((t) => t.path)).size !== texts.length) throw invalidPack('The archive names a file twice');
  const md = texts.find((t) => t.path === SKILL_MD)!;
  const parsed = parseSkillMd(md.text);
  return savePack(ownerId, parsed, [{ path: SKILL_MD, bytes: encoder.encode(parsed.body) }, ...texts.filter((t) => t !== md).map((t) => ({ path: t.path, bytes: encoder.encode(t.text) }))]);
}

/** The owner's agents that list this skill (by name), for the refusal to delete a skill in use. */
export async function agentsUsingSkill(ownerId: string, id: string, db: Db = getDb()): Promise<string[]> {
  const rows = await db.select({ name: schema.agents.name, skills: schema.agents.skills }).from(schema.agents).where(eq(schema.agents.ownerId, ownerId));
  return rows.filter((r) => r.skills.includes(id)).map((r) => r.name);
}

/**
 * Delete a skill. Refused (409 `skill_in_use`, naming the agents) while an agent lists it: detaching it silently
 * would change those agents' setup behind their owner's back. Its content is swept once nothing else names it.
 */
export async function deleteSkill(ownerId: string, id: string): Promise<void> {
  const shas = await writeTx(async (tx) => {
    const row = await findSkill(ownerId, id, tx);
    if (!row) throw notFound('Skill');
    const using = await agentsUsingSkill(ownerId, id, tx);
    if (using.length) {
      const names = using.map((n) => `"${n}"`).join(', ');
      throw new AppError(409, 'skill_in_use', `This skill is attached to ${names}; remove it from ${using.length === 1 ? 'that agent' : 'those agents'} first`);
    }
    const files = await filesOf([id], tx);
    await tx.delete(schema.skills).where(and(eq(schema.skills.id, id), eq(schema.skills.ownerId, ownerId)));
    return files.map((f) => f.sha256);
  });
  if (shas.length) await sweepContent([...new Set(shas)]);
}

/**
 * An agent's skills must all be the owner's (checked in the writing transaction): another owner's id answers like a
 * missing one, a field error naming the entry.
 */
export async function assertOwnSkills(tx: Db, ownerId: string, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  const own = new Set((await tx.select({ id: schema.skills.id }).from(schema.skills).where(and(eq(schema.skills.ownerId, ownerId), inArray(schema.skills.id, [...ids])))).map((r) => r.id));
  const unknown = ids.filter((id) => !own.has(id));
  if (unknown.length) throw new AppError(422, 'validation_error', `skills: Not one of your skills: ${unknown.slice(0, 3).join(', ')}`, { skills: `Not one of your skills: ${unknown.slice(0, 3).join(', ')}` });
}
