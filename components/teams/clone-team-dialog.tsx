'use client';

import { useRef, useState, type FormEvent } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { FormDialogActions } from '@/components/ui/form-dialog-actions';
import { Alert } from '@/components/ui/misc';
import { Modal } from '@/components/ui/modal';
import { actionData } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';
import { newClientId } from '@/lib/idempotency/client-id';
import { keyForDraft, type KeyedDraft } from '@/lib/idempotency/draft-key';
import { LIMITS } from '@/lib/limits';
import { cloneName } from '@/lib/team-clone-name';
import { boundedTextProblem } from '@/lib/text-bounds';
import type { ApiTeam } from '@/lib/types/team';
import { teamKeys, teamListQuery } from './queries';
import { cloneTeamAction } from '@/app/(app)/teams/actions';
import { TeamNameField } from './team-fields';

type Props = { team: ApiTeam; open: boolean; onClose: () => void };

/**
 * Start a new team with this one's members and goal and a fresh request capacity, then open it. The same name sent
 * again (a retry after a lost answer) carries the same request id, so it can't make a second clone.
 */
export function CloneTeamDialog({ team, open, onClose }: Props) {
  const router = useRouter();
  const queryClient = useQueryClient();
  // The first "<name> (n)" not taken by a team in the loaded list (the server refuses a taken name either way).
  const [name, setName] = useState(() => cloneName(team.name, queryClient.getQueryData(teamListQuery().queryKey)?.teams.map((t) => t.name)));
  const [error, setError] = useState<string | undefined>();
  const nameRef = useRef<HTMLInputElement>(null);
  const requestKey = useRef<KeyedDraft | null>(null);
  const clone = useMutation({
    mutationFn: (input: { requestId: string; name: string }) => actionData(() => cloneTeamAction(team.id, input)),
    onSuccess: (created) => {
      queryClient.setQueryData(teamKeys.detail(created.id), created);
      void queryClient.invalidateQueries({ queryKey: teamKeys.list() });
      router.push(`/teams/${encodeURIComponent(created.id)}`);
    },
    onError: (e) => {
      if (e instanceof ApiError && e.fields.name) setError(e.fields.name);
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    const problem = boundedTextProblem(trimmed, LIMITS.team.name, 'Name');
    setError(problem ?? undefined);
    if (problem) return nameRef.current?.focus();
    requestKey.current = keyForDraft(requestKey.current, trimmed, newClientId);
    clone.mutate({ requestId: requestKey.current.key, name: trimmed });
  };
  const close = () => !clone.isPending && onClose();
  const busy = clone.isPending || clone.isSuccess;

  return (
    <Modal
      open={open}
      onClose={close}
      busy={busy}
      title="Clone team"
      description={
        <>
          A new team with the same {team.members.length} members and goal, and room for {LIMITS.team.requests} new requests. This team and its
          history stay as they are.
        </>
      }
    >
      <form onSubmit={submit} className="mt-4 space-y-4" noValidate>
        <TeamNameField
          label="Name of the new team"
          value={name}
          error={error}
          inputRef={nameRef}
          autoFocus
          onChange={(value) => {
            setName(value);
            if (error) setError(undefined);
          }}
        />
        {clone.isError && !(clone.error instanceof ApiError && clone.error.fields.name) ? (
          <Alert>Couldn’t clone the team: {clone.error instanceof ApiError ? clone.error.message : 'try again.'}</Alert>
        ) : null}
        <FormDialogActions submitLabel="Clone team" pendingLabel="Cloning…" pending={busy} onCancel={close} />
      </form>
    </Modal>
  );
}
