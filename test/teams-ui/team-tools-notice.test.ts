import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { TeamToolsNotice } from '@/components/teams/agent-picker';

const agent = (name: string, toolGroups: string[]) => ({ id: name, name, toolGroups });
const render = (selected: ReturnType<typeof agent>[]) => renderToStaticMarkup(createElement(TeamToolsNotice, { selected }));

/*
 * The team form says which chosen agents lack the Team tools before the team is made. What must not happen: a
 * member that can't hand off or publish state chosen without a word (its first handoff then fails on a missing
 * tool), or a notice about agents that have the tools.
 */
describe('TeamToolsNotice', () => {
  it('names only the chosen agents without the Team group, as text', () => {
    const html = render([agent('Researcher', ['utility', 'team']), agent('研究者 🔬', ['utility']), agent('<b>Writer</b>', ['web'])]);
    expect(html).toContain('role="status"');
    expect(html).toContain('研究者 🔬, &lt;b&gt;Writer&lt;/b&gt; have no Team tools');
    expect(html).not.toContain('Researcher');
    expect(html).not.toContain('<b>');
  });

  it('speaks of one agent in the singular, and says nothing when every chosen agent has the group', () => {
    expect(render([agent('Solo', ['clarify'])])).toContain('Solo has no Team tools: it can’t hand');
    expect(render([agent('A', ['team']), agent('B', ['team', 'delegate'])])).toBe('');
    expect(render([])).toBe('');
  });

  it('counts an empty allowlist as having the Team group (every group but Web and Batch), as the demo agents have', () => {
    expect(render([agent('Researcher', []), agent('Reviewer', []), agent('Writer', [])])).toBe('');
    expect(render([agent('All', []), agent('Web only', ['web']), agent('Batch only', ['batch'])])).toContain('Web only, Batch only have no Team tools');
  });
});
