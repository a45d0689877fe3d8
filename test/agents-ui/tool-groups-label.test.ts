import { describe, expect, it } from 'vitest';
import { DEFAULT_GROUPS_LABEL, ONLY_WHEN_CHOSEN, TOOL_GROUPS, TOOL_GROUP_NAMES, groupsAdmitted } from '@/lib/tool-groups';

describe('how an agent with no tool groups chosen reads in the list', () => {
  it('names the groups it does not get: an empty allowlist is not every group', () => {
    expect(DEFAULT_GROUPS_LABEL).toBe('All tool groups but Batch and Web');
    const missing = TOOL_GROUP_NAMES.filter((g) => !groupsAdmitted([]).includes(g));
    expect(missing).toEqual([...ONLY_WHEN_CHOSEN]);
    for (const group of missing) expect(DEFAULT_GROUPS_LABEL).toContain(TOOL_GROUPS[group].label);
  });
});
