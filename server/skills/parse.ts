import 'server-only';
import { parseDocument } from 'yaml';
import { skillDescriptionSchema, skillNameSchema, skillBodySchema } from '@/lib/schemas/skill';
import { AppError } from '@/server/http/errors';

const invalid = (message: string, fields: Record<string, string>) => new AppError(422, 'invalid_skill', message, fields);

export type ParsedSkill = { name: string; description: string; body: string };

// Front matter: `---` alone on the first line, YAML, `---` alone on a line; the body is everything after.
const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * A SKILL.md's name, description and body. The front matter is YAML (parsed by the `yaml` package, which keeps to
 * the YAML 1.2 core schema: no custom tags or code) and must be a mapping with `name` and `description` as text,
 * each checked by the same schema as the app's form; other keys are ignored (other tools add their own). Every
 * refusal is a 422 naming `SKILL.md` and what is wrong.
 */
export function parseSkillMd(text: string): ParsedSkill {
  const match = FRONT_MATTER.exec(text.startsWith('\uFEFF') ? text.slice(1) : text);
  if (!match) throw invalid('SKILL.md must start with YAML front matter between --- lines (name and description)', { 'SKILL.md': 'No front matter' });
  const doc = parseDocument(match[1]!, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) {
    throw invalid('The front matter of SKILL.md is not valid YAML', { 'SKILL.md': `Not valid YAML: ${doc.errors[0]!.message.split('\n')[0]!.slice(0, 200)}` });
  }
  let data: unknown;
  try {
    // Aliases are refused rather than expanded (no alias bomb); nothing else in toJS can fail on parsed YAML.
    data = doc.toJS({ maxAliasCount: 0 });
  } catch {
    throw invalid('The front matter of SKILL.md uses YAML aliases, which are not accepted', { 'SKILL.md': 'Uses YAML aliases' });
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    throw invalid('The front matter of SKILL.md must be a mapping with name and description', { 'SKILL.md': 'Front matter is not a mapping' });
  }
  const { name, description } = data as Record<string, unknown>;
  const body = text.slice((text.startsWith('\uFEFF') ? 1 : 0) + match[0].length);
  const fields: Record<string, string> = {};
  const check = (field: string, value: unknown, schema: typeof skillNameSchema | typeof skillDescriptionSchema | typeof skillBodySchema) => {
    if (typeof value !== 'string') {
      fields[field] = value === undefined ? 'Required' : 'Must be text';
      return '';
    }
    const parsed = schema.safeParse(field === 'body' ? value : value.trim());
    if (!parsed.success) fields[field] = parsed.error.issues[0]!.message;
    return parsed.success ? parsed.data : '';
  };
  const result = { name: check('name', name, skillNameSchema), description: check('description', description, skillDescriptionSchema), body: check('body', body, skillBodySchema) };
  if (Object.keys(fields).length) throw invalid(`SKILL.md: ${Object.entries(fields).map(([k, v]) => `${k}: ${v}`).join('; ')}`, fields);
  return result;
}

/** SKILL.md as written from a skill's fields (front matter by the same YAML library, so it parses back the same). */
export { stringify as yamlStringify } from 'yaml';
