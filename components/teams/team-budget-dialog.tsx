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
import { teamBudgetStanding } from '@/lib/budget-state';
import { LIMITS } from '@/lib/limits';
import { NANO, nanosToUsd, parseDecimal } from '@/lib/money';
import { updateTeamSchema, type UpdateTeamInput } from '@/lib/schemas/team-budget';
import type { ApiTeam } from '@/lib/types/team';
import { updateTeamBudgetAction } from '@/app/(app)/teams/actions';

type Props = { team: ApiTeam; open: boolean; onClose: () => void; onSaved: () => void };
type Kind = 'tokens' | 'money';

/** A suggestion that lets work run again: double the budget, or twice the usage, whichever is more (within range). */
const tokenSuggestion = (team: ApiTeam) =>
  String(Math.min(LIMITS.budget.team.max, Math.max(LIMITS.budget.team.min, (team.tokenBudget ?? 0) * 2, team.tokensUsed * 2)));

/** The same in money, whole cents (ADR 048): twice the budget or twice the spend, at least the minimum. */
function moneySuggestion(team: ApiTeam): string {
  const nanos = (s: string | null) => (s === null ? 0 : (parseDecimal(s, NANO) ?? 0));
  const cent = 10_000_000;
  const min = parseDecimal(LIMITS.budget.money.min, NANO)!;
  const max = parseDecimal(LIMITS.budget.money.max, NANO)!;
  const twice = Math.ceil((Math.max(nanos(team.moneyBudget), nanos(team.spent)) * 2) / cent) * cent;
  return nanosToUsd(Math.min(max, Math.max(min, twice)));
}

const initialValue = (team: ApiTeam, kind: Kind) => {
  const current = kind === 'money' ? team.moneyBudget : team.tokenBudget === null ? null : String(team.tokenBudget);
  if (team.admissionHeld === 'team_budget' || current === null) return kind === 'money' ? moneySuggestion(team) : tokenSuggestion(team);
  return current;
};

/** Set, raise or remove the team's budget, in tokens or in money. A raise past the usage lets held work run at once. */
export function TeamBudgetDialog({ team, open, onClose, onSaved }: Props) {
  const standing = teamBudgetStanding(team);
  const [kind, setKind] = useState<Kind>(standing.kind ?? 'tokens');
  const [value, setValue] = useState(() => initialValue(team, kind));
  const [fieldError, setFieldError] = useState<string | undefined>();
  const field = kind === 'money' ? 'moneyBudget' : 'tokenBudget';
  const save = useMutation({
    mutationFn: (input: UpdateTeamInput) => actionData(() => updateTeamBudgetAction(team.id, input)),
    onSuccess: () => {
      onSaved();
      onClose();
    },
    onError: (e) => {
      if (e instanceof ApiError && e.fields[field]) setFieldError(e.fields[field]);
    },
  });

  const choose = (next: Kind) => {
    setKind(next);
    setValue(initialValue(team, next));
    setFieldError(undefined);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const trimmed = value.replace(/[,\s]/g, '');
    const input: UpdateTeamInput =
      kind === 'money' ? { moneyBudget: trimmed.replace(/^\$/, '') } : { tokenBudget: /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN };
    const parsed = updateTeamSchema.safeParse(input);
    if (!parsed.success) {
      setFieldError(parsed.error.issues[0]?.message ?? 'Enter a budget');
      return;
    }
    setFieldError(undefined);
    save.mutate(input);
  };
  const close = () => !save.isPending && onClose();
  const { min, max } = kind === 'money' ? { min: `$${LIMITS.budget.money.min}`, max: `$${Number(LIMITS.budget.money.max).toLocaleString('en-US')}` } : {
    min: LIMITS.budget.team.min.toLocaleString('en-US'),
    max: `${LIMITS.budget.team.max.toLocaleString('en-US')} tokens`,
  };

  return (
    <Modal
      open={open}
      onClose={close}
      busy={save.isPending}
      title="Team budget"
      description={
        <>
          Used so far: {standing.usage} · {standing.beside}
          {standing.unknownNote ? ` (${standing.unknownNote})` : ''}. At the budget the team starts no new work; work already
          running finishes. A higher budget lets waiting requests run.
        </>
      }
    >
      <form onSubmit={submit} className="mt-4 space-y-4" noValidate>
        <fieldset>
          <legend className="text-sm font-medium text-zinc-900 dark:text-zinc-100">Budget in</legend>
          <div className="mt-1 flex gap-4">
            {(['tokens', 'money'] as const).map((k) => (
              <label key={k} className="flex items-center gap-2 text-sm text-zinc-900 dark:text-zinc-100">
                <input
                  type="radio"
                  name="budget-kind"
                  value={k}
                  checked={kind === k}
                  onChange={() => choose(k)}
                  className="h-4 w-4 accent-indigo-600 focus:outline-2 focus:outline-offset-2 focus:outline-indigo-500"
                />
                {k === 'tokens' ? 'Tokens' : 'Money (US dollars)'}
              </label>
            ))}
          </div>
          {kind === 'money' ? (
            <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
              Counts the cost of finished runs at their model’s price. Runs whose cost is unknown (no price set, or usage not
              reported) are not counted, and the team says so.
            </p>
          ) : null}
        </fieldset>
        <Field label={kind === 'money' ? 'Budget in dollars' : 'Token budget'} error={fieldError} hint={`${min} to ${max}.`}>
          <Input inputMode={kind === 'money' ? 'decimal' : 'numeric'} autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} autoFocus />
        </Field>
        {save.isError && !(save.error instanceof ApiError && save.error.fields[field]) ? (
          <Alert>Couldn’t save the budget: {save.error instanceof ApiError ? save.error.message : 'try again.'}</Alert>
        ) : null}
        <FormDialogActions submitLabel="Save budget" pendingLabel="Saving…" pending={save.isPending} onCancel={close}>
          {standing.kind !== null ? (
            <Button
              type="button"
              variant="ghost"
              className="mr-auto"
              onClick={() => save.mutate(standing.kind === 'money' ? { moneyBudget: null } : { tokenBudget: null })}
              pending={save.isPending}
            >
              Remove budget
            </Button>
          ) : null}
        </FormDialogActions>
      </form>
    </Modal>
  );
}
