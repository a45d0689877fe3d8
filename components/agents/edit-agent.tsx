'use client';

import { ButtonLink } from '@/components/ui/button-link';
import { useQuery } from '@tanstack/react-query';
import { ApiError } from '@/lib/api-client';
import { EmptyState, Spinner } from '@/components/ui/misc';
import { LoadError } from '@/components/ui/load-error';
import { AgentForm } from './agent-form';
import { agentQuery } from './queries';
import type { ToolAvailability } from './tool-availability';

/** Loads one agent and shows the edit form, or a clear not-found / error state. */
export function EditAgent({ id, tools }: { id: string; tools: ToolAvailability }) {
  const agent = useQuery({
    ...agentQuery(id),
    retry: (count, err) => !(err instanceof ApiError && err.status === 404) && count < 1,
    // The form keeps its own copy of the values; a background refetch must not reset what is being typed.
    staleTime: Infinity,
  });

  if (agent.isPending) return <Spinner label="Loading agent" />;
  if (agent.isError) {
    if (agent.error instanceof ApiError && agent.error.status === 404) {
      return (
        <EmptyState title="Agent not found">
          <p>It may have been deleted.</p>
          <ButtonLink href="/agents" variant="secondary" className="mt-3">
            Back to agents
          </ButtonLink>
        </EmptyState>
      );
    }
    return (
      <LoadError query={agent}>Couldn’t load the agent.</LoadError>
    );
  }
  return <AgentForm key={agent.data.id} mode="edit" agent={agent.data} tools={tools} />;
}
