'use client';

import { EmptyState } from '@/components/ui/misc';
import type { McpServerSummary, McpServerView } from '@/lib/schemas/mcp-servers';
import { McpServerItem } from './mcp-server-item';
import { DeploymentMcpServer } from './deployment-mcp-server';
import type { McpScope } from './queries';

/** The servers one can manage here, then (on Settings) the deployment's, which an account uses but doesn't change. */
export function McpServerList({ scope, servers, deploymentWide = [] }: { scope: McpScope; servers: McpServerView[]; deploymentWide?: McpServerSummary[] }) {
  return (
    <div className="space-y-4">
      {servers.length === 0 ? (
        <EmptyState title="No MCP servers added yet">{scope === 'admin' ? 'Servers added here are offered to every account.' : 'Add one above to give your agents its tools.'}</EmptyState>
      ) : (
        <ul aria-label={scope === 'admin' ? 'Deployment-wide MCP servers' : 'Your MCP servers'} className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {servers.map((server) => (
            <McpServerItem key={server.id} scope={scope} server={server} />
          ))}
        </ul>
      )}
      {scope === 'account' && deploymentWide.length ? (
        <div className="space-y-2">
          <h3 className="font-medium text-zinc-900 dark:text-zinc-100">Offered by this deployment</h3>
          <ul aria-label="MCP servers offered by this deployment" className="space-y-2">
            {deploymentWide.map((server) => (
              <DeploymentMcpServer key={server.id} server={server} />
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
