'use client';

import { useRef, useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { FormDialogActions } from '@/components/ui/form-dialog-actions';
import { Alert } from '@/components/ui/misc';
import { Modal } from '@/components/ui/modal';
import { actionData } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';
import { LIMITS } from '@/lib/limits';
import type { TeamSettingsInput } from '@/lib/schemas/team-settings';
import { boundedTextProblem } from '@/lib/text-bounds';
import type { ApiTeam } from '@/lib/types/team';
import { updateTeamSettingsAction } from '@/app/(app)/teams/actions';
import { TeamTextFields } from './team-fields';

type Props = { team: ApiTeam; open: boolean; onClose: () => void; onSaved: () => void };
type Errors = { name?: string; goal?: string };

/**
 * Rename the team and edit its goal. Only what changed is sent. Requests that already started keep the goal they
 * started with; queued and new ones get the new one (the dialog says so, since it is not otherwise visible).
 */
export function TeamSettingsDialog({ team, open, onClose, onSaved }: Props) {
  const [name, setName] = useState(team.name);
  const [goal, setGoal] = useState(team.goal);
  const [errors, setErrors] = useState<Errors>({});
  const nameRef = useRef<HTMLInputElement>(null);
  const goalRef = useRef<HTMLTextAreaElement>(null);
  const save = useMutation({
    mutationFn: (input: TeamSettingsInput) => actionData(() => updateTeamSettingsAction(team.id, input)),
    onSuccess: () => {
      onSaved();
      onClose();
    },
    onError: (e) => {
      if (!(e instanceof ApiError) || !(e.fields.name || e.fields.goal)) return;
      setErrors({ name: e.fields.name, goal: e.fields.goal });
      // The server's refusal (a name already taken) goes to its field, as the form's own checks do.
      (e.fields.name ? nameRef : goalRef).current?.focus();
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmedName = name.trim();
    const trimmedGoal = goal.trim();
    const next: Errors = {
      name: boundedTextProblem(trimmedName, LIMITS.team.name, 'Name') ?? undefined,
      goal: boundedTextProblem(trimmedGoal, LIMITS.team.goal, 'Goal') ?? undefined,
    };
    setErrors(next);
    if (next.name) return nameRef.current?.focus();
    if (next.goal) return goalRef.current?.focus();
    const input: TeamSettingsInput = {
      ...(trimmedName !== team.name ? { name: trimmedName } : {}),
      ...(trimmedGoal !== team.goal ? { goal: trimmedGoal } : {}),
    };
    if (input.name === undefined && input.goal === undefined) return onClose();
    save.mutate(input);
  };
  const close = () => !save.isPending && onClose();
  const fieldError = save.error instanceof ApiError && (save.error.fields.name || save.error.fields.goal);

  return (
    <Modal open={open} onClose={close} busy={save.isPending} title="Edit team" className="max-w-lg">
      <form onSubmit={submit} className="mt-4 space-y-4" noValidate>
        <TeamTextFields
          values={{ name, goal }}
          errors={errors}
          refs={{ name: nameRef, goal: goalRef }}
          autoFocus
          goalRows={5}
          goalAbout="Every member sees it. Requests already running keep the goal they started with."
          onChange={(field, value) => {
            (field === 'name' ? setName : setGoal)(value);
            if (errors[field]) setErrors((x) => ({ ...x, [field]: undefined }));
          }}
        />
        {save.isError && !fieldError ? <Alert>Couldn’t save: {save.error instanceof ApiError ? save.error.message : 'try again.'}</Alert> : null}
        <FormDialogActions submitLabel="Save" pendingLabel="Saving…" pending={save.isPending} onCancel={close} />
      </form>
    </Modal>
  );
}
