import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { useForm } from 'react-hook-form';
import { describe, expect, it } from 'vitest';
import { ApprovalToolsField } from '@/components/agents/approval-tools-field';
import { approvalGroups, toggledApprovals, type ToolAvailability } from '@/components/agents/tool-availability';
import type { AgentCreate, AgentCreateInput } from '@/lib/schemas/agent';
import { NEW_AGENT_DEFAULTS } from '@/lib/schemas/agent-fields';
import { ALL_TOOL_NAMES } from '@/lib/tool-groups';

const WITH_SEARCH: ToolAvailability = { webSearch: true };
const WITHOUT_SEARCH: ToolAvailability = { webSearch: false };

function Form({ availability, approvalTools }: { availability: ToolAvailability; approvalTools: string[] }) {
  const { control } = useForm<AgentCreateInput, unknown, AgentCreate>({ defaultValues: { ...NEW_AGENT_DEFAULTS, approvalTools } });
  return createElement(ApprovalToolsField, { control, availability });
}
const render = (availability: ToolAvailability, approvalTools: string[] = []) => renderToStaticMarkup(createElement(Form, { availability, approvalTools }));

/** The approval checkboxes in the HTML, by tool name, with whether each is checked. */
function checkboxes(html: string): Map<string, boolean> {
  const found = new Map<string, boolean>();
  for (const [, input, tool] of html.matchAll(/<input([^>]*type="checkbox"[^>]*)\/?>.*?<span class="font-mono[^"]*">([a-z_]+)<\/span>/g)) {
    found.set(tool!, / checked=""/.test(input!));
  }
  return found;
}
const offered = (groups: ReturnType<typeof approvalGroups>) => groups.flatMap((g) => g.choices.map((c) => c.tool));

describe('approval rules offered by the agent form', () => {
  it('with a search provider: every built-in tool, web_search among them, none inactive', () => {
    const groups = approvalGroups(WITH_SEARCH, []);
    expect(offered(groups)).toEqual(ALL_TOOL_NAMES);
    expect(groups.flatMap((g) => g.choices).filter((c) => c.inactive)).toEqual([]);
    expect(groups.flatMap((g) => g.omitted)).toEqual([]);

    const html = render(WITH_SEARCH);
    expect([...checkboxes(html).keys()]).toEqual(ALL_TOOL_NAMES);
    expect(html).not.toContain('no search provider');
  });

  it('without one: no web_search checkbox, and the Web group says why it is not offered', () => {
    const groups = approvalGroups(WITHOUT_SEARCH, ['calculator']);
    expect(offered(groups)).toEqual(ALL_TOOL_NAMES.filter((t) => t !== 'web_search'));
    expect(groups.find((g) => g.group === 'web')?.omitted).toEqual([{ tool: 'web_search', reason: expect.stringContaining('no search provider') }]);

    const html = render(WITHOUT_SEARCH, ['calculator']);
    const boxes = checkboxes(html);
    expect(boxes.has('web_search')).toBe(false);
    expect(boxes.get('web_fetch')).toBe(false);
    expect(boxes.get('calculator')).toBe(true);
    expect(html).toContain('<span class="font-mono">web_search</span> is not offered: this server has no search provider, so a run never gets it.');
  });

  it('without one, a stored web_search rule stays checked, marked inactive with the reason, and is kept on save', () => {
    const groups = approvalGroups(WITHOUT_SEARCH, ['web_search']);
    expect(groups.find((g) => g.group === 'web')).toEqual({
      group: 'web',
      choices: [{ tool: 'web_fetch' }, { tool: 'web_search', inactive: 'this server has no search provider, so a run never gets it' }],
      omitted: [],
    });

    const html = render(WITHOUT_SEARCH, ['web_search', 'mcp_0badc0de_search']);
    expect(checkboxes(html).get('web_search')).toBe(true);
    const described = /<input[^>]*aria-describedby="([^"]+)"[^>]*\/?>.*?>web_search<\/span>/.exec(html)?.[1];
    expect(described).toBeTruthy();
    expect(html).toContain(`id="${described}" class="text-xs text-zinc-500 dark:text-zinc-400">Inactive: this server has no search provider, so a run never gets it. The rule is kept until you uncheck it.</p>`);
    expect(html).not.toContain('is not offered');

    // Toggling another tool keeps it and the MCP rule; only unchecking it removes it.
    expect(toggledApprovals(['web_search', 'mcp_0badc0de_search'], 'calculator', true)).toEqual(['calculator', 'web_search', 'mcp_0badc0de_search']);
    expect(toggledApprovals(['web_search', 'mcp_0badc0de_search'], 'web_search', false)).toEqual(['mcp_0badc0de_search']);
  });
});
