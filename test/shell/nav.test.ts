import { describe, expect, it } from 'vitest';
import { NAV_ITEMS, isCurrentSection } from '@/components/shell/nav-items';

describe('header sections', () => {
  it('lists Agents, Teams, Conversations, Batches, Inbox, Skills and Settings in that order', () => {
    expect(NAV_ITEMS.map((item) => item.label)).toEqual(['Agents', 'Teams', 'Conversations', 'Batches', 'Inbox', 'Skills', 'Settings']);
  });

  it('marks a section current on its page and the pages below it, not on look-alike paths', () => {
    expect(isCurrentSection('/agents', '/agents')).toBe(true);
    expect(isCurrentSection('/agents/new', '/agents')).toBe(true);
    expect(isCurrentSection('/agents/1/edit', '/agents')).toBe(true);
    expect(isCurrentSection('/agentsx', '/agents')).toBe(false);
    expect(isCurrentSection('/teams', '/agents')).toBe(false);
    expect(isCurrentSection('/', '/agents')).toBe(false);
  });
});
