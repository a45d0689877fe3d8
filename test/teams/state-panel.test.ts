import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ApiStateEntry } from '@/lib/types/team';
import { EMPTY_STATE_TEXT, StateSections } from '@/components/teams/state/state-sections';
import { groupState } from '@/components/teams/state/state-view';

const research = { memberId: 'm1', name: 'Research' };
const review = { memberId: 'm2', name: 'Review' };
let n = 0;
const entry = (over: Partial<ApiStateEntry>): ApiStateEntry => ({
  id: `e${++n}`,
  kind: 'plan',
  title: 'Cost review',
  content: 'Research gathers quotes',
  status: 'active',
  revision: 1,
  createdBy: research,
  updatedBy: research,
  source: { conversationId: 'conv-1', jobId: 'job-1' },
  updatedAt: '2026-11-30T10:00:00.000Z',
  ...over,
});

const render = (entries: ApiStateEntry[], archivedOpen = false) =>
  renderToStaticMarkup(createElement(StateSections, { view: { revision: 1, entries }, archivedOpen, onArchivedToggle: () => {} }));

describe('team state panel rendering', () => {
  it('shows the empty state', () => {
    expect(render([])).toContain(EMPTY_STATE_TEXT);
  });

  it('groups active entries by kind and puts archived ones behind a disclosure, newest change first', () => {
    const finding = entry({ kind: 'finding', title: 'Quotes' });
    const objective = entry({ kind: 'objective', title: 'Goal' });
    const old = entry({ status: 'archived', updatedAt: '2026-11-30T09:00:00.000Z' });
    const older = entry({ status: 'archived', updatedAt: '2026-11-29T09:00:00.000Z' });
    const groups = groupState([finding, older, objective, old]);
    expect(groups.active.map((g) => g.kind)).toEqual(['objective', 'finding']);
    expect(groups.archived.map((e) => e.id)).toEqual([old.id, older.id]);
    const html = render([finding, older, objective, old]);
    expect(html.indexOf('Objectives')).toBeLessThan(html.indexOf('Findings'));
    expect(html).toMatch(/<details[^>]*><summary[^>]*>Archived \(2\)<\/summary>/);
    expect(html).not.toMatch(/<details[^>]*open/);
    expect(render([old], true)).toMatch(/<details[^>]*open/);
    expect(render([old])).toContain('No active entries.');
  });

  it('renders model-written text as plain text with line breaks preserved, never HTML', () => {
    const html = render([entry({ title: '<img src=x onerror=alert(1)>', content: 'Line 1\n<script>alert(2)</script>' })]);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('Line 1\n&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(html).toContain("whitespace-pre-wrap");
  });

  it('shows kind, revision, creator, latest editor, time and the source conversation link', () => {
    const html = render([entry({ kind: 'question', revision: 3, updatedBy: review, source: { conversationId: 'conv-9', jobId: null } })]);
    expect(html).toContain('Question');
    expect(html).toContain('rev 3');
    expect(html).toContain('By Research');
    expect(html).toContain('Edited by Review');
    expect(html).toContain('dateTime="2026-11-30T10:00:00.000Z"');
    expect(html).toContain('href="/conversations/conv-9"');
  });
});
