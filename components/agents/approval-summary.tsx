'use client';

import { useQuery } from '@tanstack/react-query';
import { serverIdOfRule } from '@/lib/mcp/approval-rule';
import type { ApiAgent } from '@/lib/types/agent';
import { Badge } from '@/components/ui/misc';
import { usableMcpServersQuery } from '@/components/mcp/queries';

/**
 * What an agent asks the person before running, in its catalog entry: the servers all of whose tools need approval
 * (named; ADR 057), and how many single tools do. Server names are read only when a server rule exists.
 */
export function ApprovalSummary({ agent }: { agent: Pick<ApiAgent, 'approvalTools'> }) {
  const serverIds = agent.approvalTools.map(serverIdOfRule).filter((id): id is string => id !== null);
  const servers = useQuery({ ...usableMcpServersQuery(), enabled: serverIds.length > 0 });
  const single = agent.approvalTools.length - serverIds.length;
  if (!agent.approvalTools.length) return null;
  const names = new Map([...(servers.data?.deploymentWide ?? []), ...(servers.data?.servers ?? [])].map((s) => [s.id, s.name]));
  return (
    <div className="flex flex-wrap items-center gap-1.5 text-xs text-zinc-500 dark:text-zinc-400">
      <span>Asks before:</span>
      {serverIds.map((id) => (
        <Badge key={id}>every tool of {names.get(id) ?? (servers.isPending ? 'an MCP server' : 'a server you can no longer use')}</Badge>
      ))}
      {single > 0 ? <Badge>{single === 1 ? '1 tool' : `${single} tools`}</Badge> : null}
    </div>
  );
}
