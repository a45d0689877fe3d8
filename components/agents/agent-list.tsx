'use client';

import { ButtonLink } from '@/components/ui/button-link';
import { useRouter } from 'next/navigation';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { DEFAULT_GROUPS_LABEL, TOOL_GROUPS, type ToolGroup } from '@/lib/tool-groups';
import { actionData } from '@/lib/action-result';
import { LIMITS } from '@/lib/limits';
import { boundedTextProblem } from '@/lib/text-bounds';
import type { ApiAgent } from '@/lib/types/agent';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Alert, Badge, Card, EmptyState } from '@/components/ui/misc';
import { QueryGate } from '@/components/ui/query-gate';
import { startConversationAction } from '@/app/(app)/agents/actions';
import { conversationKeys } from '@/components/conversations/queries';
import { agentListQuery } from './queries';
import { DeleteAgentDialog } from './delete-agent-dialog';
import { ApprovalSummary } from './approval-summary';
import { useDebouncedValue } from '@/components/ui/use-debounced-value';

const SEARCH_DEBOUNCE_MS = 250;
/** The API's bound on the search text, counted in characters (an emoji is one), as the server counts them. */
const SEARCH_BOUND = { maxChars: LIMITS.agent.queryChars };
const searchProblem = (text: string) => boundedTextProblem(text, SEARCH_BOUND, 'Search', false);

/** The agent catalog: search box, list, and each agent's Chat / Edit / Delete actions. */
export function AgentList() {
  const [search, setSearch] = useState('');
  // Text the server would refuse (too long, or holding a control character pasted from a document) is never sent:
  // the field says why at once, and the list keeps the last sendable search's results rather than a load error.
  const [sendable, setSendable] = useState('');
  const query = useDebouncedValue(sendable, SEARCH_DEBOUNCE_MS);
  const problem = searchProblem(search.trim());
  const [toDelete, setToDelete] = useState<ApiAgent | null>(null);

  const agents = useQuery({
    ...agentListQuery(query),
    // Keep showing the last results while the next search loads, so the list doesn't flash empty.
    placeholderData: keepPreviousData,
  });

  return (
    <div className="space-y-4">
      <Field label="Search agents" labelPlacement="hidden" className="max-w-md" error={problem ?? undefined}>
        <Input
          type="search"
          placeholder="Search by name or description"
          value={search}
          onChange={(e) => {
            setSearch(e.target.value);
            const text = e.target.value.trim();
            if (!searchProblem(text)) setSendable(text);
          }}
          autoComplete="off"
        />
      </Field>

      <QueryGate query={agents} loading="Loading agents" failed="Couldn’t load your agents.">
        {({ agents: list }) =>
          list.length === 0 ? (
            query ? (
              <EmptyState title="No matching agents">No agent’s name or description contains “{query}”.</EmptyState>
            ) : (
              <EmptyState title="No agents yet">
                <p>Create a Custom Agent with its own instructions, model and tools.</p>
                <ButtonLink href="/agents/new" className="mt-3">
                  Create your first agent
                </ButtonLink>
              </EmptyState>
            )
          ) : (
            <>
              <p className="sr-only" role="status">
                {list.length === 1 ? '1 agent' : `${list.length} agents`}
              </p>
              <ul className="grid grid-cols-1 gap-3" aria-busy={agents.isFetching}>
                {list.map((agent) => (
                  <li key={agent.id} className="min-w-0">
                    <AgentListItem agent={agent} onDelete={() => setToDelete(agent)} />
                  </li>
                ))}
              </ul>
            </>
          )
        }
      </QueryGate>

      <DeleteAgentDialog agent={toDelete} onClose={() => setToDelete(null)} />
    </div>
  );
}

function AgentListItem({ agent, onDelete }: { agent: ApiAgent; onDelete: () => void }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const chat = useMutation({
    mutationFn: () => actionData(() => startConversationAction(agent.id)),
    onSuccess: async ({ id }) => {
      await queryClient.invalidateQueries({ queryKey: conversationKeys.list() });
      router.push(`/conversations/${encodeURIComponent(id)}`);
    },
  });

  return (
    <Card className="flex min-w-0 flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
      <div className="min-w-0 flex-1 space-y-1.5">
        <div className="flex flex-wrap items-center gap-2">
          <h2 className="min-w-0 font-semibold wrap-anywhere text-zinc-900 dark:text-zinc-50">{agent.name}</h2>
          <Badge tone="info" className="max-w-full truncate font-mono">
            {agent.model}
          </Badge>
        </div>
        {agent.description ? (
          <p className="line-clamp-2 text-sm wrap-anywhere text-zinc-600 dark:text-zinc-300">{agent.description}</p>
        ) : (
          <p className="text-sm text-zinc-500 italic dark:text-zinc-400">No description</p>
        )}
        <div className="flex flex-wrap items-center gap-1.5 text-xs text-zinc-500 dark:text-zinc-400">
          <span>Tools:</span>
          {agent.toolGroups.length === 0 ? (
            <Badge>{DEFAULT_GROUPS_LABEL}</Badge>
          ) : (
            agent.toolGroups.map((g) => <Badge key={g}>{TOOL_GROUPS[g as ToolGroup]?.label ?? g}</Badge>)
          )}
        </div>
        <ApprovalSummary agent={agent} />
        {chat.isError ? <Alert>Could not start a conversation: {chat.error.message}</Alert> : null}
      </div>
      <div className="flex shrink-0 flex-wrap gap-2">
        <Button size="sm" onClick={() => chat.mutate()} pending={chat.isPending || chat.isSuccess} aria-label={`Chat with ${agent.name}`}>
          {chat.isPending || chat.isSuccess ? 'Opening…' : 'Chat'}
        </Button>
        <ButtonLink href={`/batches/new?agentId=${encodeURIComponent(agent.id)}`} variant="secondary" size="sm" aria-label={`Run over a list with ${agent.name}`}>
          Run over a list
        </ButtonLink>
        <ButtonLink href={`/agents/${encodeURIComponent(agent.id)}/edit`} variant="secondary" size="sm" aria-label={`Edit ${agent.name}`}>
          Edit
        </ButtonLink>
        <Button size="sm" variant="ghost" onClick={onDelete} aria-label={`Delete ${agent.name}`} className="text-red-700 dark:text-red-400">
          Delete
        </Button>
      </div>
    </Card>
  );
}
