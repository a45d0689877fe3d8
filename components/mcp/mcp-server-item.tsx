'use client';

import { useMcpChanged } from './use-mcp-changed';
import { useState } from 'react';
import { deleteAdminMcpServerAction } from '@/app/(app)/admin/mcp-actions';
import { deleteMcpServerAction } from '@/app/(app)/settings/mcp-actions';
import { ConfirmRemoval } from '@/components/admin/confirm-removal';
import { Button } from '@/components/ui/button';
import type { McpServerView } from '@/lib/schemas/mcp-servers';
import { McpServerEditForm, McpServerUsage, McpToolsPanel } from './mcp-lazy';
import { McpServerTitle } from './mcp-server-title';
import type { McpScope } from './queries';

/** One MCP server: how it is reached (secrets by name only), its limits, its tools and status on demand, Edit, Remove. */
export function McpServerItem({ scope, server }: { scope: McpScope; server: McpServerView }) {
  const changed = useMcpChanged();
  const [showTools, setShowTools] = useState(false);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const secretNames = server.transport === 'http' ? server.headerNames : server.envNames;

  return (
    <li className="space-y-3 p-3">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-48 flex-1 space-y-1">
          <McpServerTitle server={server} />
          <p className="text-xs break-all text-zinc-600 dark:text-zinc-400">
            {server.transport === 'http' ? server.url : [server.command, ...server.args].join(' ')}
          </p>
          <p className="text-xs text-zinc-600 dark:text-zinc-400">
            {secretNames.length ? `${server.transport === 'http' ? 'Headers' : 'Environment'} set: ${secretNames.join(', ')}` : 'No secrets set'} ·{' '}
            {server.timeoutMs / 1000} s per call · {server.maxConcurrent} at once
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          <Button variant="secondary" size="sm" onClick={() => setShowTools((v) => !v)} aria-expanded={showTools} aria-label={`Tools of ${server.name}`}>
            Tools
          </Button>
          <Button variant="secondary" size="sm" onClick={() => setEditing((v) => !v)} aria-expanded={editing} aria-label={`Edit ${server.name}`}>
            Edit
          </Button>
          <Button variant="secondary" size="sm" onClick={() => setConfirming(true)} aria-label={`Remove ${server.name}`}>
            Remove
          </Button>
        </div>
      </div>
      {showTools ? <McpToolsPanel scope={scope} serverId={server.id} serverName={server.name} /> : null}
      {editing ? <McpServerEditForm scope={scope} server={server} onDone={() => setEditing(false)} /> : null}
      <ConfirmRemoval
        open={confirming}
        name={server.name}
        description={confirming ? <McpServerUsage scope={scope} serverId={server.id} /> : null}
        confirmLabel="Remove server"
        remove={() => (scope === 'admin' ? deleteAdminMcpServerAction(server.id) : deleteMcpServerAction(server.id))}
        onClose={() => setConfirming(false)}
        onRemoved={changed}
      />
    </li>
  );
}
