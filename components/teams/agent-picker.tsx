'use client';

import { useId } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { Alert } from '@/components/ui/misc';
import { QueryGate } from '@/components/ui/query-gate';
import { Input } from '@/components/ui/input';
import { cn } from '@/components/ui/cn';
import { LIMITS } from '@/lib/limits';
import { groupsAdmitted, TOOL_GROUPS } from '@/lib/tool-groups';
import type { ApiAgent, ApiAgentList } from '@/lib/types/agent';
import { ButtonLink } from '@/components/ui/button-link';

const { minMembers, maxMembers } = LIMITS.team;

type Props = {
  search: string;
  onSearch: (value: string) => void;
  catalog: UseQueryResult<ApiAgentList, Error>;
  selected: ApiAgent[];
  onToggle: (agent: ApiAgent, checked: boolean) => void;
  error?: string;
};

/**
 * Search the owner's agents and choose 2–8. The list only ever shows what the catalog API returned:
 * when it fails the picker says so and offers Retry.
 */
export function AgentPicker({ search, onSearch, catalog, selected, onToggle, error }: Props) {
  const searchId = useId();
  const counterId = useId();
  const errorId = useId();
  const itemId = useId();
  const selectedIds = new Set(selected.map((a) => a.id));
  const full = selected.length >= maxMembers;

  return (
    <fieldset className="min-w-0 space-y-3" aria-describedby={[counterId, error ? errorId : ''].filter(Boolean).join(' ')}>
      <legend className="text-sm font-medium text-zinc-800 dark:text-zinc-200">Members</legend>

      <div className="space-y-1">
        <label htmlFor={searchId} className="block text-sm text-zinc-700 dark:text-zinc-300">
          Search your agents by name or description
        </label>
        <Input id={searchId} type="search" value={search} onChange={(e) => onSearch(e.target.value)} autoComplete="off" />
      </div>

      <p id={counterId} aria-live="polite" className="text-sm text-zinc-600 dark:text-zinc-400">
        {selected.length} / {maxMembers} selected · at least {minMembers}
      </p>
      {error ? (
        <p id={errorId} className="text-sm text-red-600 dark:text-red-400">
          {error}
        </p>
      ) : null}

      {selected.length > 0 ? (
        <ul aria-label="Selected agents" className="flex flex-wrap gap-2">
          {selected.map((agent) => (
            <li key={agent.id} className="max-w-full">
              <button
                type="button"
                onClick={() => onToggle(agent, false)}
                aria-label={`Remove ${agent.name}`}
                className="inline-flex max-w-full items-center gap-1 rounded-full bg-indigo-100 px-3 py-1 text-sm text-indigo-900 hover:bg-indigo-200 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:bg-indigo-950 dark:text-indigo-100 dark:hover:bg-indigo-900"
              >
                <span className="truncate">{agent.name}</span>
                <span aria-hidden>×</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}

      <TeamToolsNotice selected={selected} />

      <QueryGate query={catalog} loading="Loading your agents…" failed="Couldn’t load your agents.">
        {({ agents }) =>
          agents.length === 0 ? (
            <div className="rounded-md border border-dashed border-zinc-300 p-4 text-sm text-zinc-600 dark:border-zinc-700 dark:text-zinc-400">
              {search.trim() ? (
                <p>No agents match “{search.trim()}”.</p>
              ) : (
                <>
                  <p>You have no agents yet. A team needs at least two.</p>
                  <ButtonLink href="/agents/new" variant="secondary" size="sm" className="mt-3">
                    Create an agent
                  </ButtonLink>
                </>
              )}
            </div>
          ) : (
            <ul
              aria-label="Your agents"
              aria-busy={catalog.isFetching}
              className="max-h-80 divide-y divide-zinc-200 overflow-y-auto rounded-md border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
            >
              {agents.map((agent) => {
                const checked = selectedIds.has(agent.id);
                const disabled = !checked && full;
                return (
                  <li key={agent.id}>
                    <label
                      className={cn(
                        'flex cursor-pointer items-start gap-3 px-3 py-2.5',
                        disabled ? 'cursor-not-allowed opacity-60' : 'hover:bg-zinc-50 dark:hover:bg-zinc-800/60',
                      )}
                    >
                      <input
                        type="checkbox"
                        className="mt-1 size-4 shrink-0 accent-indigo-600"
                        checked={checked}
                        disabled={disabled}
                        aria-labelledby={`${itemId}-${agent.id}-name`}
                        aria-describedby={agent.description ? `${itemId}-${agent.id}-desc` : undefined}
                        onChange={(e) => onToggle(agent, e.target.checked)}
                      />
                      <span className="min-w-0 flex-1">
                        <span
                          id={`${itemId}-${agent.id}-name`}
                          className="block break-words text-sm font-medium text-zinc-900 dark:text-zinc-100">{agent.name}</span>
                        {agent.description ? (
                          <span
                            id={`${itemId}-${agent.id}-desc`}
                            className="line-clamp-2 block break-words text-xs text-zinc-600 dark:text-zinc-400">
                            {agent.description}
                          </span>
                        ) : null}
                        <span className="block truncate text-xs text-zinc-500 dark:text-zinc-400">{agent.model}</span>
                      </span>
                    </label>
                  </li>
                );
              })}
            </ul>
          )
        }
      </QueryGate>
      {full ? (
        <p className="text-xs text-zinc-500 dark:text-zinc-400">A team has at most {maxMembers} members; remove one to choose another.</p>
      ) : null}
    </fieldset>
  );
}

/**
 * Chosen agents without the Team tool group can't hand work to the other members or keep the team's shared state
 * (a request asking them to would fail on a missing tool): say so before the team is made, not after.
 */
export function TeamToolsNotice({ selected }: { selected: Pick<ApiAgent, 'id' | 'name' | 'toolGroups'>[] }) {
  // An empty allowlist admits the Team group too (the agent list says "All tool groups but Batch and Web"): only a list without it lacks it.
  const without = selected.filter((agent) => !groupsAdmitted(agent.toolGroups).includes('team'));
  if (without.length === 0) return null;
  const names = without.map((agent) => agent.name).join(', ');
  return (
    <Alert tone="info">
      {without.length === 1 ? `${names} has` : `${names} have`} no {TOOL_GROUPS.team.label} tools: {without.length === 1 ? 'it' : 'they'} can’t hand
      work to other members or publish team state. Add the {TOOL_GROUPS.team.label} group on the agent’s page if{' '}
      {without.length === 1 ? 'it' : 'they'} should.
    </Alert>
  );
}
