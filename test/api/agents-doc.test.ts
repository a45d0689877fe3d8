import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { POST as createRoute } from '@/app/api/v1/agents/route';
import { TOOL_GROUP_NAMES } from '@/lib/tool-groups';
import type { ApiAgent } from '@/lib/types/agent';
import { makeUser } from '../support/users';

/** docs/api.md's "## Agents" section: what a client writes its code against. */
const agentsSection = () => {
  const doc = fs.readFileSync(path.resolve(__dirname, '../../docs/api.md'), 'utf8');
  const start = doc.indexOf('\n## Agents\n');
  expect(start, 'docs/api.md has an "## Agents" section').toBeGreaterThan(-1);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end === -1 ? undefined : end);
};

const kind = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

describe('docs/api.md agrees with the agents API', () => {
  it('the Agent example has every field the API returns, in its order and of its type', async () => {
    const example = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(agentsSection())![1]!) as Record<string, unknown>;
    const user = await makeUser('docs');
    const res = await createRoute(
      new Request('http://localhost/api/v1/agents', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...user.auth },
        body: JSON.stringify({ name: 'Researcher', approvalTools: ['calculator'] }),
      }),
      undefined as never,
    );
    expect(res.status).toBe(201);
    const agent = (await res.json()) as ApiAgent;

    expect(Object.keys(example)).toEqual(Object.keys(agent));
    for (const [key, value] of Object.entries(agent)) expect(kind(example[key]), key).toBe(kind(value));
  });

  it('the toolGroups rule names every tool group the API accepts', () => {
    const row = agentsSection()
      .split('\n')
      .find((line) => line.startsWith('| `toolGroups` |'));
    expect(row).toBeDefined();
    for (const group of TOOL_GROUP_NAMES) expect(row, group).toContain(`\`${group}\``);
  });

  it('the field rules cover every field a client may send', () => {
    const section = agentsSection();
    for (const field of ['tokenBudget', 'allowedSubagents', 'maxDepth', 'maxChildren', 'maxConcurrentChildren']) {
      expect(section, field).toContain(`| \`${field}\` |`);
    }
  });
});
