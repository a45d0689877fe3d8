'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type Ref } from 'react';
import { mcpServerRule } from '@/lib/mcp/approval-rule';
import { mcpServerTag, mcpServerTagOf, mcpToolName } from '@/lib/mcp/tool-name';
import type { AgentMcpSelection } from '@/lib/schemas/agent';
import { Button } from '@/components/ui/button';
import { LoadError } from '@/components/ui/load-error';
import { Spinner } from '@/components/ui/misc';
import { CheckboxOption, RadioOption } from './form-options';
import { fetchMcpTools, mcpKeys, mcpToolsQuery } from '@/components/mcp/queries';

type Entry = AgentMcpSelection[number];
type Props = {
  server: { id: string; name: string; scope: 'deployment' | 'own' | 'gone' };
  entry: Entry | null;
  approvalTools: string[];
  inputRef?: Ref<HTMLInputElement>;
  onBlur: () => void;
  /** The server's new entry (null: not used), and which approval rules to drop with the change. */
  onEntry: (entry: Entry | null, dropApprovals?: (name: string) => boolean) => void;
  onApprovals: (approvalTools: string[]) => void;
};

const SCOPE = { deployment: 'Added by your administrator', own: 'Yours', gone: 'Deleted, or no longer shared with you: uncheck to remove it' } as const;

/** One MCP server in the agent form: used or not, whole or by tools, and its tools' approval rules. */
export function McpServerOption({ server, entry, approvalTools, inputRef, onBlur, onEntry, onApprovals }: Props) {
  // The server's approval rules: its tools' names, and the rule for all of its tools.
  const ofServer = (name: string) => name === mcpServerRule(server.id) || mcpServerTagOf(name) === mcpServerTag(server.id);
  return (
    <div className="min-w-0 space-y-2 rounded-md border border-zinc-200 p-3 dark:border-zinc-800">
      <CheckboxOption
        ref={inputRef}
        label={server.name}
        description={SCOPE[server.scope]}
        checked={entry !== null}
        onBlur={onBlur}
        onChange={(on) => onEntry(on ? { serverId: server.id, tools: 'all' } : null, ofServer)}
      />
      {entry && server.scope !== 'gone' ? (
        <ServerTools serverId={server.id} serverName={server.name} entry={entry} approvalTools={approvalTools} onBlur={onBlur} onEntry={onEntry} onApprovals={onApprovals} />
      ) : null}
    </div>
  );
}

function ServerTools({ serverId, serverName, entry, approvalTools, onBlur, onEntry, onApprovals }: Omit<Props, 'server' | 'inputRef' | 'entry'> & { serverId: string; serverName: string; entry: Entry }) {
  const id = useId();
  const queryClient = useQueryClient();
  const tools = useQuery(mcpToolsQuery('account', serverId));
  const [checking, setChecking] = useState(false);
  const listed = tools.data?.tools ?? [];
  const chosen = entry.tools === 'all' ? null : entry.tools;
  // Tools the agent names that the server no longer lists: shown so they can be unchecked.
  const missing = chosen ? chosen.filter((name) => !listed.some((t) => t.name === name)) : [];
  const approvalOf = (tool: string) => mcpToolName(serverId, tool);
  const serverRule = mcpServerRule(serverId);
  const askForAll = approvalTools.includes(serverRule);
  // The server's rule covers each of its tools (and those it adds later): single rules under it would say nothing.
  const setAskForAll = (on: boolean) => {
    const others = approvalTools.filter((n) => n !== serverRule && mcpServerTagOf(n) !== mcpServerTag(serverId));
    onApprovals(on ? [...others, serverRule] : approvalTools.filter((n) => n !== serverRule));
  };
  const setApproval = (tool: string, on: boolean) => {
    const name = approvalOf(tool);
    onApprovals(on ? [...approvalTools.filter((n) => n !== name), name] : approvalTools.filter((n) => n !== name));
  };
  const setTool = (tool: string, on: boolean) => {
    const next = on ? [...(chosen ?? []), tool] : (chosen ?? []).filter((t) => t !== tool);
    onEntry({ serverId, tools: next }, on ? undefined : (name) => name === approvalOf(tool));
  };
  const checkAgain = async () => {
    setChecking(true);
    try {
      queryClient.setQueryData(mcpKeys.tools('account', serverId), await fetchMcpTools('account', serverId, true));
    } catch {
      await tools.refetch();
    } finally {
      setChecking(false);
    }
  };

  return (
    <div className="space-y-2 pl-6">
      <div role="radiogroup" aria-labelledby={`${id}-mode`} className="space-y-1">
        <p id={`${id}-mode`} className="sr-only">
          Which tools of {serverName}
        </p>
        <RadioOption name={`${id}-mode`} label="All its tools, now and later" checked={chosen === null} onBlur={onBlur} onSelect={() => onEntry({ serverId, tools: 'all' })} />
        {/* Chosen from the server's list, so offered once the list is here (it starts with every listed tool). */}
        <RadioOption
          name={`${id}-mode`}
          label="Only the tools checked below"
          checked={chosen !== null}
          disabled={chosen === null && !listed.length}
          onBlur={onBlur}
          onSelect={() => onEntry({ serverId, tools: listed.map((t) => t.name) })}
        />
      </div>
      <CheckboxOption
        label="Ask before every tool of this server"
        description="Each call of any of its tools, also those it adds later, waits for your approval."
        checked={askForAll}
        onBlur={onBlur}
        onChange={setAskForAll}
      />
      {tools.isPending ? (
        <Spinner label="Loading its tools…" />
      ) : tools.isError ? (
        <LoadError query={tools}>Couldn’t load its tools.</LoadError>
      ) : (
        <>
          {tools.data.status === 'error' ? (
            <div role="alert" className="flex flex-wrap items-center gap-2 text-sm text-amber-800 dark:text-amber-300">
              <span>
                The server can&apos;t be reached{tools.data.error ? `: ${tools.data.error}` : ''} (checked {new Date(tools.data.checkedAt).toLocaleString()}).
              </span>
              <Button type="button" variant="secondary" pending={checking} onClick={() => void checkAgain()}>
                {checking ? 'Checking…' : 'Check again'}
              </Button>
            </div>
          ) : listed.length === 0 ? (
            <p className="text-sm text-zinc-600 dark:text-zinc-400">This server offers no tools.</p>
          ) : null}
          <ul className="space-y-2" aria-label={`Tools of ${serverName}`}>
            {[...listed.map((t) => ({ name: t.name, description: t.description })), ...missing.map((name) => ({ name, description: 'No longer offered by the server' }))].map((tool) => {
              const used = chosen === null || chosen.includes(tool.name);
              return (
                <li key={tool.name} className="min-w-0 space-y-1">
                  {chosen !== null ? (
                    <CheckboxOption label={<span className="font-mono text-[13px] break-all">{tool.name}</span>} checked={used} onBlur={onBlur} onChange={(on) => setTool(tool.name, on)} />
                  ) : (
                    <p className="font-mono text-[13px] break-all text-zinc-800 dark:text-zinc-200">{tool.name}</p>
                  )}
                  {tool.description ? <p className="pl-6 text-xs break-words text-zinc-500 dark:text-zinc-400">{tool.description}</p> : null}
                  {used && !askForAll ? (
                    <div className="pl-6">
                      <CheckboxOption
                        label={<span className="text-xs">Needs approval: {tool.name}</span>}
                        checked={approvalTools.includes(approvalOf(tool.name))}
                        onBlur={onBlur}
                        onChange={(on) => setApproval(tool.name, on)}
                      />
                    </div>
                  ) : null}
                </li>
              );
            })}
          </ul>
        </>
      )}
    </div>
  );
}
