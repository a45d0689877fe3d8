'use client';

import { useId, useState, type FormEvent } from 'react';
import { useRouter } from 'next/navigation';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Select } from '@/components/ui/input';
import { actionData } from '@/lib/action-result';
import { agentListQuery } from '@/components/agents/queries';
import { conversationKeys } from './queries';
import { createConversationAction } from '@/app/(app)/conversations/actions';
import { loadErrorMessage, sendErrorMessage } from './errors';

/** Pick an agent and start a conversation with it. */
export function NewConversation() {
  const errorId = useId();
  const router = useRouter();
  const queryClient = useQueryClient();
  const agents = useQuery(agentListQuery(''));
  const [agentId, setAgentId] = useState('');
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const list = agents.data?.agents ?? [];
  const selected = agentId || list[0]?.id || '';

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!selected || creating) return;
    setCreating(true);
    setError(null);
    try {
      const conversation = await actionData(() => createConversationAction({ agentId: selected }));
      void queryClient.invalidateQueries({ queryKey: conversationKeys.list() });
      router.push(`/conversations/${encodeURIComponent(conversation.id)}`);
    } catch (err) {
      setError(sendErrorMessage(err));
      setCreating(false);
    }
  }

  if (agents.isError) {
    return <p className="text-sm text-red-600 dark:text-red-400">{loadErrorMessage(agents.error, 'Agents')}</p>;
  }
  if (agents.isSuccess && list.length === 0) {
    return (
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        <Link href="/agents/new" className="text-indigo-700 underline dark:text-indigo-300">
          Create an agent
        </Link>{' '}
        to start a conversation.
      </p>
    );
  }

  return (
    <form onSubmit={onSubmit} className="flex w-full flex-wrap items-end gap-2 sm:w-auto" aria-label="New conversation">
      <Field label="Agent" className="min-w-0 flex-1 sm:flex-none">
        <Select
          className="sm:w-64"
          value={selected}
          onChange={(e) => setAgentId(e.target.value)}
          disabled={!agents.isSuccess}
          aria-describedby={error ? errorId : undefined}
        >
          {agents.isSuccess ? null : <option value="">Loading agents…</option>}
          {list.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
        </Select>
      </Field>
      <Button type="submit" disabled={!selected || creating}>
        {creating ? 'Starting…' : 'New conversation'}
      </Button>
      {error ? (
        <p id={errorId} role="alert" className="w-full text-sm text-red-600 dark:text-red-400">
          {error}
        </p>
      ) : null}
    </form>
  );
}
