import 'server-only';
import type { StructuredToolInterface } from '@langchain/core/tools';

/** What the prompt lists and the assembly records of each skill attached to an agent (ADR 061). */
export type AttachedSkill = { id: string; name: string; description: string; hash: string };

/** The tool that loads a skill on demand; the `skills` group (server/skills) builds it and plugs in at start-up. */
export const READ_SKILL = 'read_skill';

/**
 * The skills a run's tools carry: read_skill's metadata `ensembleSkills`, written by the skills group from the
 * owner's rows. The run core reads them here (the system prompt's list, the assembly record) without importing the
 * skills domain, as it reads an MCP tool's origin from its metadata. None without read_skill.
 */
export function attachedSkillsOf(tools: readonly StructuredToolInterface[]): AttachedSkill[] {
  for (const t of tools) {
    const skills = (t as { metadata?: Record<string, unknown> }).metadata?.ensembleSkills;
    if (t.name === READ_SKILL && Array.isArray(skills)) return skills as AttachedSkill[];
  }
  return [];
}
