'use client';

import { useState } from 'react';
import { Button } from '@/components/ui/button';
import type { McpServerSummary } from '@/lib/schemas/mcp-servers';
import { McpToolsPanel } from './mcp-lazy';
import { McpServerTitle } from './mcp-server-title';

/** A server the deployment offers, as an account sees it: its name and kind, and its tools on demand. */
export function DeploymentMcpServer({ server }: { server: McpServerSummary }) {
  const [showTools, setShowTools] = useState(false);
  return (
    <li className="space-y-2 rounded-md border border-zinc-200 p-3 dark:border-zinc-800">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <McpServerTitle server={server} className="text-sm" />
        <Button variant="secondary" size="sm" onClick={() => setShowTools((v) => !v)} aria-expanded={showTools} aria-label={`Tools of ${server.name}`}>
          Tools
        </Button>
      </div>
      {showTools ? <McpToolsPanel scope="account" serverId={server.id} serverName={server.name} /> : null}
    </li>
  );
}
