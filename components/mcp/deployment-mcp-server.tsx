'use client';

import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Badge } from '@/components/ui/misc';
import type { McpServerSummary } from '@/lib/schemas/mcp-servers';
import { McpToolsPanel } from './mcp-lazy';

/** A server the deployment offers, as an account sees it: its name and kind, and its tools on demand. */
export function DeploymentMcpServer({ server }: { server: McpServerSummary }) {
  const [showTools, setShowTools] = useState(false);
  return (
    <li className="space-y-2 rounded-md border border-zinc-200 p-3 dark:border-zinc-800">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="flex flex-wrap items-center gap-2 text-sm">
          <span className="font-medium text-zinc-900 dark:text-zinc-100">{server.name}</span>
          <Badge>{server.transport === 'http' ? 'Streamable HTTP' : 'stdio'}</Badge>
        </p>
        <Button variant="secondary" size="sm" onClick={() => setShowTools((v) => !v)} aria-expanded={showTools} aria-label={`Tools of ${server.name}`}>
          Tools
        </Button>
      </div>
      {showTools ? <McpToolsPanel scope="account" serverId={server.id} serverName={server.name} /> : null}
    </li>
  );
}
