import { ALL_TOOL_NAMES, TOOL_GROUP_NAMES, TOOL_GROUPS, type ToolGroup } from '@/lib/tool-groups';

/**
 * What this server can run beyond the static tool groups (lib/tool-groups.ts): web_search exists only when the
 * deployment configured a search provider (WEB_SEARCH_PROVIDER, ADR 060). The page reads it on the server and hands
 * it to the form, which has no other way to know.
 */
export type ToolAvailability = { webSearch: boolean };

/** Why each tool this server never gives a run can't run, by tool name. */
export function inactiveTools(availability: ToolAvailability): ReadonlyMap<string, string> {
  const inactive = new Map<string, string>();
  if (!availability.webSearch) inactive.set('web_search', 'this server has no search provider, so a run never gets it');
  return inactive;
}

export type ApprovalChoice = { tool: string; inactive?: string };
export type ApprovalGroup = { group: ToolGroup; choices: ApprovalChoice[]; omitted: { tool: string; reason: string }[] };

/**
 * The approval rules the form offers, by group: every tool a run can get, and a tool it can't only when the agent
 * already has the rule stored (kept, never silently dropped on save, and marked inactive with the reason). `stored`
 * is the agent's saved rules, not the live value, so a rule unchecked while editing stays on screen to re-check.
 */
export function approvalGroups(availability: ToolAvailability, stored: readonly string[]): ApprovalGroup[] {
  const inactive = inactiveTools(availability);
  return TOOL_GROUP_NAMES.map((group) => {
    const choices: ApprovalChoice[] = [];
    const omitted: ApprovalGroup['omitted'] = [];
    for (const tool of TOOL_GROUPS[group].tools) {
      const reason = inactive.get(tool);
      if (!reason) choices.push({ tool });
      else if (stored.includes(tool)) choices.push({ tool, inactive: reason });
      else omitted.push({ tool, reason });
    }
    return { group, choices, omitted };
  });
}

/** The approval rules with one built-in tool turned on or off, the MCP tools' rules (set in their own field) kept. */
export function toggledApprovals(value: readonly string[], tool: string, on: boolean): string[] {
  return [...ALL_TOOL_NAMES.filter((t) => (t === tool ? on : value.includes(t))), ...value.filter((t) => !ALL_TOOL_NAMES.includes(t))];
}
