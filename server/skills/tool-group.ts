import 'server-only';
import { ToolMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { tool, type StructuredToolInterface } from '@langchain/core/tools';
import { z } from 'zod';
import { LIMITS } from '@/lib/limits';
import type { SkillRef } from '@/lib/types/skill';
import type { RunContext } from '@/server/agents/run-types';
import { READ_SKILL, type AttachedSkill } from '@/server/agents/tools/attached-skills';
import { registerToolGroup, type ToolGroupAgent } from '@/server/agents/tools/registry';
import { AppError } from '@/server/http/errors';
import { readSkillFile, ownSkills, SKILL_MD } from './skills';

/** The artifact of a read_skill result: written here from the skill's row, never from the model's arguments. */
export type SkillArtifact = { origin: string; skill: SkillRef };

/**
 * The `skills` tool group (ADR 061): `read_skill` when the agent has skills, nothing otherwise. Skills resolve with
 * the run's owner (RunContext.ownerId, server-written; a delegated child's is its parent's), and only among the
 * agent's own attached ones, so neither another owner's skill nor an unattached one can be read, whatever the
 * model writes. The skills are resolved once per run's build; their name, description and hash ride on the tool's
 * metadata, which the system prompt and the assembly record read (graph.ts, assembly/descriptor.ts).
 */
export async function skillToolsFor(context: RunContext, agent?: ToolGroupAgent): Promise<StructuredToolInterface[]> {
  const ids = agent?.skills ?? [];
  if (!ids.length) return [];
  const rows = await ownSkills(context.ownerId, ids);
  if (!rows.length) return [];
  const attached: AttachedSkill[] = rows.map((r) => ({ id: r.id, name: r.name, description: r.description, hash: r.hash }));
  const byName = new Map(attached.map((s) => [s.name.toLowerCase(), s]));
  const byId = new Map(attached.map((s) => [s.id, s]));
  const names = attached.map((s) => s.name);
  const made = tool(
    async ({ skill, path }: { skill: string; path?: string }, config: RunnableConfig & { toolCall?: { id?: string } }) => {
      const found = byId.get(skill) ?? byName.get(skill.trim().toLowerCase());
      const callId = config.toolCall?.id ?? '';
      if (!found) {
        return new ToolMessage({ tool_call_id: callId, name: READ_SKILL, status: 'error', content: `No skill named "${skill.slice(0, 80)}" is attached. Attached: ${names.join(', ')}` });
      }
      const file = path?.trim() ? path.trim() : SKILL_MD;
      // The run's owner, never anything the model wrote: the skill is read as that owner's (404 otherwise).
      const owner = (config.configurable?.ensemble as RunContext | undefined)?.ownerId ?? context.ownerId;
      let text: string;
      try {
        text = (await readSkillFile(owner, found.id, file)).text;
      } catch (err) {
        if (err instanceof AppError && err.status === 404) {
          return new ToolMessage({ tool_call_id: callId, name: READ_SKILL, status: 'error', content: `The skill "${found.name}" has no file "${file.slice(0, 200)}"` });
        }
        throw err;
      }
      const cut = text.length > LIMITS.skills.readChars ? `${text.slice(0, LIMITS.skills.readChars)}\n[cut at ${LIMITS.skills.readChars} characters]` : text;
      const artifact: SkillArtifact = { origin: `skill:${found.name}`, skill: { id: found.id, name: found.name, hash: found.hash, path: file } };
      return new ToolMessage({ tool_call_id: callId, name: READ_SKILL, status: 'success', content: cut, artifact });
    },
    {
      name: READ_SKILL,
      description: `Read one of your skills: its instructions (SKILL.md) by default, or one of its files by path. Skills: ${names.join(', ')}.`.slice(0, 1_000),
      schema: z.object({
        skill: z.string().min(1).max(200).describe('The skill\'s name as listed in your instructions'),
        path: z.string().max(LIMITS.skills.path.maxChars).optional().describe('A file of the skill; omit for its instructions'),
      }),
      metadata: { ensembleSkills: attached },
    },
  ) as StructuredToolInterface;
  return [made];
}

/** Register the `skills` group with the run core, like `mcp`: selected by the agent's own skills. Idempotent. */
export function registerSkillTools(): void {
  registerToolGroup('skills', skillToolsFor, { selectedByAgent: true });
}
