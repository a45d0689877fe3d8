'use client';

import { useQuery } from '@tanstack/react-query';
import { mcpUsageQuery, type McpScope } from './queries';

const agentsWord = (n: number) => (n === 1 ? '1 agent' : `${n} agents`);

/**
 * The removal dialog's description of an MCP server: which agents use it (the person's own by name; for a
 * deployment-wide server, other accounts' agents counted only), since removing it takes it out of them.
 */
export function McpServerUsage({ scope, serverId }: { scope: McpScope; serverId: string }) {
  const usage = useQuery(mcpUsageQuery(scope, serverId));
  if (usage.isPending) return <p>Checking which agents use it…</p>;
  if (usage.isError) return <p>Could not check which agents use it ({usage.error.message}). Removing it takes it out of every agent that uses it.</p>;
  const { agents, count } = usage.data;
  if (count === 0) return <p>No agent uses it.</p>;
  const others = count - agents.length;
  return (
    <div className="space-y-2">
      <p>
        Used by {agentsWord(count)}
        {others > 0 && agents.length > 0 ? ` (${others} of other accounts)` : others > 0 ? ' of other accounts' : ''}. Removing it takes it and its
        approval rules out of {count === 1 ? 'that agent' : 'those agents'}; their runs no longer offer its tools.
      </p>
      {agents.length ? (
        <ul aria-label="Agents that use it" className="list-inside list-disc">
          {agents.map((a) => (
            <li key={a.id}>{a.name}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
