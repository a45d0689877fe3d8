import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { withoutMcpServers, mcpServerRule } from '@/lib/mcp/approval-rule';
import { mcpServerTag, mcpToolName } from '@/lib/mcp/tool-name';

/**
 * Rows for the migration that takes MCP servers that no longer exist out of agents (SQLite 0027, Postgres 0020), the
 * same for both engines (test/db/dangling-mcp-servers-migration.test.ts, test-pg/dangling-mcp-servers-migration.test.ts),
 * and what each agent must hold afterwards: lib/mcp/approval-rule.ts's withoutMcpServers, which deleting a server
 * applies today, is the oracle for the SQL.
 */

const ANN = 'user-ann';
const BOB = 'user-bob';
const ids = {
  annKept: '0b6f2a52-61b9-4d3e-9a43-8f0b6c1f3a10',
  annGone: '6d1c3e7a-2b54-4f0e-8c21-5a9e7d3b4c22',
  deployment: 'c4e8a1f2-9d37-4b65-a1c0-7e2f5b8d9a33',
  deploymentGone: 'f7a3b9c1-4e28-4d16-b5a7-2c9d1e8f6b44',
  // Two ids with one FNV-1a tag (8b3f6b1c): a tool rule by that tag may be the kept server's, so it stays.
  clashGone: 'a91dea21-78ac-4a3a-8926-fcb383a701ac',
  clashKept: '512fbc09-42ce-4165-9efb-5863bca1bdce',
};

type Selection = Array<{ serverId: string; tools: 'all' | string[] }>;
export type AgentFixture = { id: string; ownerId: string; name: string; mcpTools: Selection; approvalTools: string[] };

const at = new Date('2026-11-01T08:00:00.000Z');

export const users = [ANN, BOB].map((id) => ({ id, email: `${id}@example.test`, passwordHash: 'x' }));

/** Servers that exist: ann's two, one deployment-wide. annGone, deploymentGone and clashGone were deleted. */
export const servers = [
  { id: ids.annKept, ownerId: ANN, scope: ANN, name: 'files' },
  { id: ids.clashKept, ownerId: ANN, scope: ANN, name: 'clash' },
  { id: ids.deployment, ownerId: null, scope: '', name: 'shared' },
].map((s) => ({ ...s, transport: 'http' as const, timeoutMs: 30_000, maxConcurrent: 4, updatedAt: at }));

export const agents: AgentFixture[] = [
  {
    id: 'agent-writer',
    ownerId: ANN,
    name: 'Writer',
    mcpTools: [
      { serverId: ids.annGone, tools: ['find'] },
      { serverId: ids.annKept, tools: 'all' },
      { serverId: ids.deployment, tools: ['x'] },
      { serverId: ids.deploymentGone, tools: 'all' },
    ],
    approvalTools: [
      'calculator',
      mcpToolName(ids.annGone, 'find'),
      mcpServerRule(ids.annGone),
      mcpToolName(ids.annKept, 'read'),
      mcpToolName(ids.deployment, 'x'),
      mcpServerRule(ids.annKept),
      mcpToolName(ids.deploymentGone, 'a.b/c'),
    ],
  },
  {
    id: 'agent-clash',
    ownerId: ANN,
    name: 'Clash',
    mcpTools: [
      { serverId: ids.clashGone, tools: 'all' },
      { serverId: ids.clashKept, tools: 'all' },
    ],
    approvalTools: [mcpToolName(ids.clashGone, 'a'), mcpServerRule(ids.clashGone), mcpToolName(ids.clashKept, 'b')],
  },
  // Ann's server is not one Bob may use: it goes from his agent as a deleted one does.
  { id: 'agent-borrower', ownerId: BOB, name: 'Borrower', mcpTools: [{ serverId: ids.annKept, tools: ['read'] }], approvalTools: [mcpToolName(ids.annKept, 'read'), 'web_fetch'] },
  { id: 'agent-only-gone', ownerId: BOB, name: 'Only gone', mcpTools: [{ serverId: ids.annGone, tools: 'all' }], approvalTools: [mcpServerRule(ids.annGone)] },
  // Nothing dangling: left exactly as it was, its updated time too.
  { id: 'agent-untouched', ownerId: ANN, name: 'Untouched', mcpTools: [{ serverId: ids.annKept, tools: 'all' }], approvalTools: [mcpToolName(ids.annKept, 'read'), mcpToolName(ids.annGone, 'find')] },
  { id: 'agent-plain', ownerId: BOB, name: 'Plain', mcpTools: [], approvalTools: ['calculator'] },
];

export const agentRows = agents.map((a) => ({ ...a, nameKey: a.name.toLowerCase(), toolGroups: [], createdAt: at, updatedAt: at }));

if (mcpServerTag(ids.clashGone) !== mcpServerTag(ids.clashKept)) throw new Error('the clash fixture lost its clash');

/** What the agent holds after the migration: the servers its owner may not use taken out, as deleting them does. */
export function expected(agent: AgentFixture): { mcpTools: Selection; approvalTools: string[]; changed: boolean } {
  const usable = new Set(servers.filter((s) => s.ownerId === null || s.ownerId === agent.ownerId).map((s) => s.id));
  const gone = new Set(agent.mcpTools.map((s) => s.serverId).filter((id) => !usable.has(id)));
  return { ...withoutMcpServers(agent.mcpTools, agent.approvalTools, gone), changed: gone.size > 0 };
}

/** The migrated row holds what deleting those servers would have left, and moved `updatedAt` only if it changed. */
export function expectAsDeletingLeft(row: { mcpTools: Selection; approvalTools: string[]; updatedAt: Date }, agent: AgentFixture): void {
  const want = expected(agent);
  expect({ mcpTools: row.mcpTools, approvalTools: row.approvalTools }).toEqual({ mcpTools: want.mcpTools, approvalTools: want.approvalTools });
  const original = agentRows.find((a) => a.id === agent.id)!;
  expect(row.updatedAt.getTime() > original.updatedAt.getTime()).toBe(want.changed);
}

/**
 * A migrations folder that ends just before `tag`: the journal without it and what follows (drizzle reads the SQL
 * files by the journal's tags, not the snapshots). Migrating with it, then with the real folder, applies `tag` to
 * rows written in between.
 */
export function migrationsBefore(folder: string, tag: string): string {
  const journal = JSON.parse(fs.readFileSync(path.join(folder, 'meta/_journal.json'), 'utf8')) as { entries: Array<{ tag: string }> };
  const index = journal.entries.findIndex((e) => e.tag === tag);
  if (index < 0) throw new Error(`no migration ${tag} in ${folder}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-before-'));
  fs.mkdirSync(path.join(dir, 'meta'));
  fs.writeFileSync(path.join(dir, 'meta/_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, index) }));
  for (const entry of journal.entries.slice(0, index)) fs.copyFileSync(path.join(folder, `${entry.tag}.sql`), path.join(dir, `${entry.tag}.sql`));
  return dir;
}
