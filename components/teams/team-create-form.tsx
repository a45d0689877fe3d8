'use client';

import { useRouter } from 'next/navigation';
import { useRef, useState, type FormEvent } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, PageHeader } from '@/components/ui/misc';
import { Button } from '@/components/ui/button';
import { actionData } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';
import { LIMITS } from '@/lib/limits';
import { deriveMemberNames } from '@/lib/member-names';
import type { CreateTeamInput } from '@/lib/schemas/team';
import type { ApiAgent } from '@/lib/types/agent';
import { boundedTextProblem } from '@/lib/text-bounds';
import { newClientId } from '@/lib/idempotency/client-id';
import { keyForDraft, teamDraftSignature, type KeyedDraft } from '@/lib/idempotency/draft-key';
import { AgentPicker } from './agent-picker';
import { agentListQuery } from '@/components/agents/queries';
import { teamKeys } from './queries';
import { createTeamAction } from '@/app/(app)/teams/actions';
import { useDebouncedValue } from '@/components/ui/use-debounced-value';
import { TeamTextFields } from './team-fields';

type FieldErrors = Partial<Record<'name' | 'goal' | 'agentIds', string>>;
const { minMembers, maxMembers } = LIMITS.team;

/** Name, goal and 2–8 agents; creation is idempotent by a request id that follows the draft. */
export function TeamCreateForm() {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [goal, setGoal] = useState('');
  const [search, setSearch] = useState('');
  const [selected, setSelected] = useState<ApiAgent[]>([]);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const requestKey = useRef<KeyedDraft | null>(null);
  const nameRef = useRef<HTMLInputElement>(null);
  const goalRef = useRef<HTMLTextAreaElement>(null);

  const query = useDebouncedValue(search.trim(), 250);
  const catalog = useQuery({
    ...agentListQuery(query),
    placeholderData: keepPreviousData,
    retry: false,
  });

  const create = useMutation({
    mutationFn: (body: CreateTeamInput) => actionData(() => createTeamAction(body)),
    onSuccess: (team) => {
      void queryClient.invalidateQueries({ queryKey: teamKeys.list() });
      router.push(`/teams/${team.id}`);
    },
    onError: (error) => {
      if (error instanceof ApiError) {
        const fields: FieldErrors = {};
        for (const key of ['name', 'goal', 'agentIds'] as const) {
          const message = error.fields[key] ?? Object.entries(error.fields).find(([k]) => k.startsWith(`${key}.`))?.[1];
          if (message) fields[key] = message;
        }
        setErrors(fields);
        setFormError(Object.keys(fields).length > 0 ? 'Please fix the highlighted fields.' : error.message);
      } else {
        setFormError('Something went wrong. Your input is kept; try again.');
      }
    },
  });

  const toggle = (agent: ApiAgent, checked: boolean) => {
    setSelected((prev) => {
      if (!checked) return prev.filter((a) => a.id !== agent.id);
      if (prev.some((a) => a.id === agent.id) || prev.length >= maxMembers) return prev;
      return [...prev, agent];
    });
    setErrors((e) => ({ ...e, agentIds: undefined }));
  };

  const catalogReady = catalog.isSuccess;
  const canSubmit = catalogReady && selected.length >= minMembers && selected.length <= maxMembers && !create.isPending;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const trimmedName = name.trim();
    const trimmedGoal = goal.trim();
    const next: FieldErrors = {};
    const nameProblem = boundedTextProblem(trimmedName, LIMITS.team.name, 'Name');
    const goalProblem = boundedTextProblem(trimmedGoal, LIMITS.team.goal, 'Goal');
    if (nameProblem) next.name = nameProblem;
    if (goalProblem) next.goal = goalProblem;
    if (selected.length < minMembers) next.agentIds = `Choose at least ${minMembers} agents`;
    setErrors(next);
    if (Object.keys(next).length > 0) {
      setFormError(null);
      if (next.name) nameRef.current?.focus();
      else if (next.goal) goalRef.current?.focus();
      return;
    }
    if (!canSubmit) return;
    setFormError(null);
    const agentIds = selected.map((a) => a.id);
    // Same draft → same request id, so a retried submit can't create a second team.
    requestKey.current = keyForDraft(requestKey.current, teamDraftSignature(trimmedName, trimmedGoal, agentIds), newClientId);
    create.mutate({ requestId: requestKey.current.key, name: trimmedName, goal: trimmedGoal, agentIds });
  };

  const previewNames = deriveMemberNames(selected.map((a) => a.name));

  return (
    <div className="mx-auto w-full max-w-3xl">
      <PageHeader title="New team" />
      <form onSubmit={onSubmit} noValidate className="space-y-6" aria-describedby={formError ? 'team-form-error' : undefined}>
        {formError ? (
          <div id="team-form-error">
            <Alert>{formError}</Alert>
          </div>
        ) : null}

        <TeamTextFields
          values={{ name, goal }}
          errors={errors}
          refs={{ name: nameRef, goal: goalRef }}
          goalRows={4}
          goalAbout="What the team works toward; every member sees it."
          onChange={(field, value) => {
            (field === 'name' ? setName : setGoal)(value);
            if (errors[field]) setErrors((x) => ({ ...x, [field]: undefined }));
          }}
        />

        <AgentPicker
          search={search}
          onSearch={setSearch}
          catalog={catalog}
          selected={selected}
          onToggle={toggle}
          error={errors.agentIds}
        />

        {selected.length > 0 ? (
          <section aria-labelledby="member-preview-heading" className="space-y-2">
            <h2 id="member-preview-heading" className="text-sm font-medium text-zinc-800 dark:text-zinc-200">
              Member names
            </h2>
            <p className="text-xs text-zinc-500 dark:text-zinc-400">
              Members are named after their agents; mention them with @ in the team composer. The roster is fixed once the
              team exists.
            </p>
            <ol className="flex flex-wrap gap-2">
              {previewNames.map((memberName, i) => (
                <li
                  key={selected[i]!.id}
                  className="max-w-full truncate rounded-md bg-zinc-100 px-2 py-1 text-sm text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200"
                >
                  @{memberName}
                </li>
              ))}
            </ol>
          </section>
        ) : null}

        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" disabled={!canSubmit}>
            {create.isPending ? 'Creating…' : 'Create team'}
          </Button>
          {!catalogReady ? (
            <span className="text-sm text-zinc-500 dark:text-zinc-400">Waiting for your agent catalog…</span>
          ) : selected.length < minMembers ? (
            <span className="text-sm text-zinc-500 dark:text-zinc-400">Choose at least {minMembers} agents.</span>
          ) : null}
        </div>
      </form>
    </div>
  );
}
