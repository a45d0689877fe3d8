'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { LoadError } from '@/components/ui/load-error';
import { Badge, Spinner } from '@/components/ui/misc';
import { Time } from '@/components/ui/time';
import type { McpToolView } from '@/lib/schemas/mcp-servers';
import { fetchMcpTools, mcpKeys, mcpToolsQuery, type McpScope } from './queries';

const HINT_LABELS: Array<[keyof NonNullable<McpToolView['annotations']>, string]> = [
  ['readOnlyHint', 'Read-only'],
  ['destructiveHint', 'Destructive'],
  ['idempotentHint', 'Idempotent'],
  ['openWorldHint', 'Open world'],
];

/**
 * A server's last discovery by any process (ADR 057): its status (connected, or the error) with when it was checked,
 * and its tools with their input schemas (on an error, those last listed).
 * Everything a server wrote is shown as text — names, descriptions, the schema as JSON in a <pre> — never as HTML.
 */
export function McpToolsPanel({ scope, serverId, serverName }: { scope: McpScope; serverId: string; serverName: string }) {
  const queryClient = useQueryClient();
  const query = useQuery(mcpToolsQuery(scope, serverId));
  const [refreshing, setRefreshing] = useState(false);

  const refresh = async () => {
    setRefreshing(true);
    try {
      queryClient.setQueryData(mcpKeys.tools(scope, serverId), await fetchMcpTools(scope, serverId, true));
    } catch {
      await query.refetch();
    } finally {
      setRefreshing(false);
    }
  };

  if (query.isPending) return <Spinner label={`Checking ${serverName}`} />;
  if (query.isError) return <LoadError query={query}>Couldn’t check {serverName}.</LoadError>;
  const status = query.data;
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <p role="status" className="flex flex-wrap items-center gap-2">
          <Badge tone={status.status === 'connected' ? 'success' : 'danger'}>{status.status === 'connected' ? 'Connected' : 'Error'}</Badge>
          <span className="text-zinc-600 dark:text-zinc-400">
            checked <Time iso={status.checkedAt} format="datetime" />
          </span>
        </p>
        <Button variant="secondary" size="sm" onClick={refresh} pending={refreshing} aria-label={`Check ${serverName} again`}>
          {refreshing ? 'Checking…' : 'Check again'}
        </Button>
      </div>
      {status.error ? <p className="text-sm break-words text-red-600 dark:text-red-400">{status.error}</p> : null}
      {status.status === 'error' && status.listedAt === null ? (
        <p className="text-sm text-zinc-700 dark:text-zinc-300">Its tools have never been listed, so agents are not offered any yet.</p>
      ) : null}
      {status.status === 'connected' || status.listedAt !== null ? (
        <>
          <p className="text-sm text-zinc-700 dark:text-zinc-300">
            {status.tools.length === 1 ? '1 tool' : `${status.tools.length} tools`}
            {status.toolsTruncated ? ' (the server listed more; the rest are left out)' : ''}
            {status.status === 'error' && status.listedAt ? (
              <>
                {' '}
                as last listed <Time iso={status.listedAt} format="datetime" />; runs are offered these, and a call fails while the server can&apos;t be reached
              </>
            ) : null}
          </p>
          <ul aria-label={`Tools of ${serverName}`} className="space-y-2">
            {status.tools.map((tool) => (
              <li key={tool.name} className="rounded-md border border-zinc-200 p-2 dark:border-zinc-800">
                <details>
                  <summary className="cursor-pointer text-sm">
                    <code className="font-medium break-all">{tool.name}</code>
                    {HINT_LABELS.filter(([hint]) => tool.annotations?.[hint]).map(([hint, label]) => (
                      <Badge key={hint} className="ml-2">
                        {label}
                      </Badge>
                    ))}
                    {tool.description ? <span className="mt-1 block text-zinc-600 dark:text-zinc-400">{tool.description}</span> : null}
                  </summary>
                  <p className="mt-2 text-xs text-zinc-500 dark:text-zinc-400">Input schema</p>
                  <pre className="mt-1 max-h-64 overflow-auto rounded bg-zinc-50 p-2 text-xs break-all whitespace-pre-wrap dark:bg-zinc-900">
                    {JSON.stringify(tool.inputSchema, null, 2)}
                  </pre>
                </details>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}
