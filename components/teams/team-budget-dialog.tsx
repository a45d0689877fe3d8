'use client';

import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Button } from '@/components/ui/button';
import { FormDialogActions } from '@/components/ui/form-dialog-actions';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Alert } from '@/components/ui/misc';
import { Modal } from '@/components/ui/modal';
import { actionData } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';
import { usageText } from '@/lib/budget-state';
import { LIMITS } from '@/lib/limits';
import { updateTeamSchema } from '@/lib/schemas/team-budget';
import type { ApiTeam } from '@/lib/types/team';
import { useTeamActions } from './team-actions';

type Props = { team: ApiTeam; open: boolean; onClose: () => void; onSaved: () => void };

/** A suggestion that lets work run again: double the budget, or twice the usage, whichever is more (within range). */
const suggestion = (team: ApiTeam) =>
  String(Math.min(LIMITS.budget.team.max, Math.max(LIMITS.budget.team.min, (team.tokenBudget ?? 0) * 2, team.tokensUsed * 2)));

/** Set, raise or remove the team's token budget. A raise past the usage lets held work run at once. */
export function TeamBudgetDialog({ team, open, onClose, onSaved }: Props) {
  const actions = useTeamActions();
  const [value, setValue] = useState(() => (team.admissionHeld === 'team_budget' || team.tokenBudget === null ? suggestion(team) : String(team.tokenBudget)));
  const [fieldError, setFieldError] = useState<string | undefined>();
  const save = useMutation({
    mutationFn: (tokenBudget: number | null) => actionData(() => actions.updateBudget(team.id, { tokenBudget })),
    onSuccess: () => {
      onSaved();
      onClose();
    },
    onError: (e) => {
      if (e instanceof ApiError && e.fields.tokenBudget) setFieldError(e.fields.tokenBudget);
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const trimmed = value.replace(/[,\s]/g, '');
    const parsed = updateTeamSchema.safeParse({ tokenBudget: /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN });
    if (!parsed.success) {
      setFieldError(parsed.error.issues[0]?.message ?? 'Enter a whole number of tokens');
      return;
    }
    setFieldError(undefined);
    save.mutate(parsed.data.tokenBudget);
  };
  const close = () => !save.isPending && onClose();

  return (
    <Modal
      open={open}
      onClose={close}
      busy={save.isPending}
      title="Team token budget"
      description={
        <>
          Used so far: {usageText(team.tokensUsed, team.tokenBudget)}. At the budget the team starts no new work; work already
          running finishes. A higher budget lets waiting requests run.
        </>
      }
    >
      <form onSubmit={submit} className="mt-4 space-y-4" noValidate>
        <Field
          label="Token budget"
          error={fieldError}
          hint={`${LIMITS.budget.team.min.toLocaleString('en-US')} to ${LIMITS.budget.team.max.toLocaleString('en-US')} tokens.`}
        >
          <Input inputMode="numeric" autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} autoFocus />
        </Field>
        {save.isError && !(save.error instanceof ApiError && save.error.fields.tokenBudget) ? (
          <Alert>Couldn’t save the budget: {save.error instanceof ApiError ? save.error.message : 'try again.'}</Alert>
        ) : null}
        <FormDialogActions submitLabel="Save budget" pendingLabel="Saving…" pending={save.isPending} onCancel={close}>
          {team.tokenBudget !== null ? (
            <Button type="button" variant="ghost" className="mr-auto" onClick={() => save.mutate(null)} pending={save.isPending}>
              Remove budget
            </Button>
          ) : null}
        </FormDialogActions>
      </form>
    </Modal>
  );
}
