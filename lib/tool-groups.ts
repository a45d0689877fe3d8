/**
 * The tool groups an agent can allow, and the tools in each. Pure data so the agent form (browser) and the
 * runtime (server) agree; the tool implementations live in server/agents/tools.
 */
export const TOOL_GROUPS = {
  utility: {
    label: 'Utility',
    description: 'Harmless helpers: the current time and a calculator.',
    tools: ['current_time', 'calculator'],
  },
  team: {
    label: 'Team',
    description: 'Hand work to team members and keep the team’s shared state. Team members need this group.',
    tools: [
      'send_member',
      'read_team_context',
      'publish_team_state',
      'read_team_state',
      'update_team_state',
      'read_team_history',
      'search_team_results',
      'read_team_result',
    ],
  },
  delegate: {
    label: 'Delegate',
    description: 'Split a task among helper agents (the task tool) and use their results.',
    tools: ['task'],
  },
  batch: {
    label: 'Batch',
    description: 'Run one prompt over a list of items as a durable batch (the batch_task tool). Only when this group is chosen.',
    tools: ['batch_task'],
  },
  clarify: {
    label: 'Clarify',
    description: 'Ask the person a clarifying question and wait for the answer.',
    tools: ['ask_clarification'],
  },
  files: {
    label: 'Files',
    description: 'Read, search and write the files of the team workspace (a member) or of the chat: each write is a new version.',
    tools: ['list_files', 'read_file', 'search_files', 'write_file', 'append_file'],
  },
  web: {
    label: 'Web',
    description: 'Read public web pages as Markdown (web_fetch), and search the web when the deployment has a search provider (web_search). Only when this group is chosen.',
    tools: ['web_fetch', 'web_search'],
  },
} as const;

export type ToolGroup = keyof typeof TOOL_GROUPS;
export const TOOL_GROUP_NAMES = Object.keys(TOOL_GROUPS) as ToolGroup[];
/** Groups offered only to an agent that names them (server/web/tools.ts, server/batches/tool.ts), not by an empty allowlist. */
export const ONLY_WHEN_CHOSEN: readonly ToolGroup[] = ['batch', 'web'];
export const ALL_TOOL_NAMES: string[] = TOOL_GROUP_NAMES.flatMap((g) => [...TOOL_GROUPS[g].tools]);

/** What an empty allowlist gives, in a list of agents: every group but those offered only when chosen, named. */
export const DEFAULT_GROUPS_LABEL = `All tool groups but ${ONLY_WHEN_CHOSEN.map((g) => TOOL_GROUPS[g].label).join(' and ')}`;

/** The groups an allowlist admits: an empty allowlist means every group but those offered only when chosen. */
export function groupsAdmitted(groups: readonly string[]): ToolGroup[] {
  return groups.length ? TOOL_GROUP_NAMES.filter((g) => groups.includes(g)) : TOOL_GROUP_NAMES.filter((g) => !ONLY_WHEN_CHOSEN.includes(g));
}

/** The tools an allowlist admits (groupsAdmitted). */
export function toolsForGroups(groups: readonly string[]): string[] {
  return groupsAdmitted(groups).flatMap((g) => [...TOOL_GROUPS[g].tools]);
}
