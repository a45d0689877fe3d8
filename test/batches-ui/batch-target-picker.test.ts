import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { BatchTargetPicker } from '@/components/batches/batch-target-picker';
import type { BatchTargetChoices } from '@/lib/types/batch';

const render = (choices: BatchTargetChoices) => renderToStaticMarkup(createElement(BatchTargetPicker, { choices }));

describe('BatchTargetPicker (/batches/new without a target)', () => {
  it('offers the agents and each team’s members in one labelled select, grouped, names as text', () => {
    const html = render({
      agents: [{ kind: 'agent', agentId: 'a1', name: '<b>Writer</b>' }, { kind: 'agent', agentId: 'a2', name: '研究者 🔬' }],
      teams: [{ teamId: 't1', name: 'Launch', members: [{ kind: 'member', teamId: 't1', memberId: 'm1', name: 'Reviewer' }] }],
    });
    const id = /<label for="([^"]+)"[^>]*>Run with<\/label>/.exec(html)?.[1];
    expect(id).toBeTruthy();
    // Disabled in the server's HTML: a choice made before hydration would be lost.
    const select = new RegExp(`<select[^>]*id="${id}"[^>]*>`).exec(html)?.[0];
    expect(select).toContain('disabled=""');
    expect(html).toContain('<optgroup label="Agents"><option value="agent:a1">&lt;b&gt;Writer&lt;/b&gt;</option><option value="agent:a2">研究者 🔬</option></optgroup>');
    expect(html).toContain('<optgroup label="Team Launch"><option value="member:t1:m1">Reviewer</option></optgroup>');
    // Nothing chosen yet: no form, so nothing can start against no one.
    expect(html).not.toContain('<form');
    expect(html).not.toContain('<b>');
  });

  it('with no agent and no team member, says so and links to creating an agent instead of an empty select', () => {
    const html = render({ agents: [], teams: [] });
    expect(html).toContain('No agents yet');
    expect(html).toMatch(/<a[^>]*href="\/agents\/new"[^>]*>Create an agent<\/a>/);
    expect(html).not.toContain('<select');
  });
});
