'use client';

import { useState } from 'react';
import { ButtonLink } from '@/components/ui/button-link';
import { Field } from '@/components/ui/field';
import { Select } from '@/components/ui/input';
import { EmptyState } from '@/components/ui/misc';
import type { BatchTarget, BatchTargetChoices } from '@/lib/types/batch';
import { BatchStartForm } from './batch-start-form';
import { useHydrated } from './use-hydrated';

/** A choice's value in the select: its kind and ids, which no agent's or member's name can fake. */
const keyOf = (target: BatchTarget) => (target.kind === 'agent' ? `agent:${target.agentId}` : `member:${target.teamId}:${target.memberId}`);

/**
 * /batches/new opened without a target (from the Batches page or typed): choose the agent or team member the list
 * runs with, then the usual form. The form stays as it is when the choice changes, so a list pasted first is kept.
 */
export function BatchTargetPicker({ choices }: { choices: BatchTargetChoices }) {
  const hydrated = useHydrated();
  const [key, setKey] = useState('');
  const all = [...choices.agents, ...choices.teams.flatMap((t) => t.members)];
  const target = all.find((t) => keyOf(t) === key) ?? null;

  if (!all.length) {
    return (
      <EmptyState title="No agents yet">
        <p>A batch runs one of your agents (or a member of one of your teams) over every item of a list.</p>
        <ButtonLink href="/agents/new" variant="secondary" size="sm" className="mt-3">
          Create an agent
        </ButtonLink>
      </EmptyState>
    );
  }
  return (
    <div className="space-y-6">
      <Field label="Run with" hint="Each item of the list runs as its own chat with this agent or team member.">
        <Select value={key} disabled={!hydrated} onChange={(e) => setKey(e.target.value)} className="max-w-md">
          <option value="">Choose an agent or a team member…</option>
          {choices.agents.length ? (
            <optgroup label="Agents">
              {choices.agents.map((a) => (
                <option key={keyOf(a)} value={keyOf(a)}>
                  {a.name}
                </option>
              ))}
            </optgroup>
          ) : null}
          {choices.teams.map((team) => (
            <optgroup key={team.teamId} label={`Team ${team.name}`}>
              {team.members.map((m) => (
                <option key={keyOf(m)} value={keyOf(m)}>
                  {m.name}
                </option>
              ))}
            </optgroup>
          ))}
        </Select>
      </Field>
      {target ? <BatchStartForm target={target} /> : <p className="text-sm text-zinc-600 dark:text-zinc-400">Choose who runs the list to fill in the list and the prompt.</p>}
    </div>
  );
}
