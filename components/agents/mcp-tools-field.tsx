'use client';

import { useQuery } from '@tanstack/react-query';
import { useController, type Control, type FieldError } from 'react-hook-form';
import type { AgentCreate, AgentCreateInput, AgentMcpSelection } from '@/lib/schemas/agent';
import { LoadError } from '@/components/ui/load-error';
import { Spinner } from '@/components/ui/misc';
import { CheckboxFieldset } from './form-options';
import { McpServerOption } from './mcp-server-option';
import { usableMcpServersQuery } from '@/components/mcp/queries';

type Server = { id: string; name: string; scope: 'deployment' | 'own' };

/**
 * The agent form's MCP servers: each server the person may use (the deployment's and their own), to use whole (all
 * its tools, now and later) or by single tools, and which of its tools need approval. Writes `mcpTools`, and the MCP
 * names in `approvalTools` (lib/mcp/tool-name.ts; the built-in names there are the approval fieldset's). A server
 * the agent names that the list no longer has (deleted, or no longer shared) stays listed so it can be removed.
 */
export function McpToolsField({ control }: { control: Control<AgentCreateInput, unknown, AgentCreate> }) {
  const { field, fieldState } = useController({ control, name: 'mcpTools' });
  const approvals = useController({ control, name: 'approvalTools' });
  const usable = useQuery(usableMcpServersQuery());
  const selection: AgentMcpSelection = field.value ?? [];
  const approvalTools = approvals.field.value ?? [];

  const listed: Server[] = [
    ...(usable.data?.deploymentWide ?? []).map((s) => ({ id: s.id, name: s.name, scope: 'deployment' as const })),
    ...(usable.data?.servers ?? []).map((s) => ({ id: s.id, name: s.name, scope: 'own' as const })),
  ];
  const gone = usable.data ? selection.filter((s) => !listed.some((l) => l.id === s.serverId)) : [];
  const setEntry = (serverId: string, entry: AgentMcpSelection[number] | null, dropApprovals: (name: string) => boolean = () => false) => {
    const rest = selection.filter((s) => s.serverId !== serverId);
    field.onChange(entry ? [...selection.map((s) => (s.serverId === serverId ? entry : s)), ...(selection.some((s) => s.serverId === serverId) ? [] : [entry])] : rest);
    if (approvalTools.some(dropApprovals)) approvals.field.onChange(approvalTools.filter((name) => !dropApprovals(name)));
  };

  return (
    <CheckboxFieldset
      legend="MCP servers"
      hint="Tools from MCP servers your administrator added, or you added in Settings. A whole server includes the tools it adds later."
      error={firstMessage(fieldState.error)}
    >
      {usable.isPending ? (
        <Spinner label="Loading MCP servers…" />
      ) : usable.isError ? (
        <LoadError query={usable}>Couldn’t load your MCP servers.</LoadError>
      ) : listed.length === 0 && gone.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">No MCP servers yet. Add one in Settings → MCP servers, or ask your administrator.</p>
      ) : (
        <ul className="space-y-2" aria-label="MCP servers">
          {listed.map((server, i) => (
            <li key={server.id}>
              <McpServerOption
                server={server}
                entry={selection.find((s) => s.serverId === server.id) ?? null}
                approvalTools={approvalTools}
                inputRef={i === 0 ? field.ref : undefined}
                onBlur={field.onBlur}
                onEntry={(entry, drop) => setEntry(server.id, entry, drop)}
                onApprovals={approvals.field.onChange}
              />
            </li>
          ))}
          {gone.map((entry) => (
            <li key={entry.serverId}>
              <McpServerOption
                server={{ id: entry.serverId, name: 'A server you can no longer use', scope: 'gone' }}
                entry={entry}
                approvalTools={approvalTools}
                onBlur={field.onBlur}
                onEntry={(next, drop) => setEntry(entry.serverId, next, drop)}
                onApprovals={approvals.field.onChange}
              />
            </li>
          ))}
        </ul>
      )}
    </CheckboxFieldset>
  );
}

/** The first message of a field's error, nested ones included (mcpTools.0.tools). */
function firstMessage(error: FieldError | undefined): string | undefined {
  if (!error) return undefined;
  if (typeof error.message === 'string' && error.message) return error.message;
  for (const value of Object.values(error as Record<string, unknown>)) {
    if (value && typeof value === 'object' && value !== error) {
      const found = firstMessage(value as FieldError);
      if (found) return found;
    }
  }
  return undefined;
}
