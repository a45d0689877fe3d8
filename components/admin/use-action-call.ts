'use client';

import { useState } from 'react';
import { actionResult, type ActionError, type ActionResult } from '@/lib/action-result';

type FieldErrors<F extends string> = Partial<Record<F, string>>;

/**
 * Where a refusal is said: each of its field errors the form shows at that field, and its message only when none of
 * those fields has one — a refusal of a field the form doesn't show (or of no field) still reaches the person. A part
 * of a shown field (`headers.X-Api-Key`: one entry of a map the form edits as lines) is said at that field, naming
 * the entry.
 */
export function placeRefusal<F extends string>(error: ActionError, shownFields: readonly F[]): { fieldErrors: FieldErrors<F>; message: string | null } {
  const fields = error.fields ?? {};
  const errorOf = (field: F): string | undefined => {
    if (fields[field]) return fields[field];
    const part = Object.keys(fields).find((key) => key.startsWith(`${field}.`));
    return part ? `${part.slice(field.length + 1)}: ${fields[part]}` : undefined;
  };
  const fieldErrors = Object.fromEntries(shownFields.flatMap((f) => (errorOf(f) ? [[f, errorOf(f)]] : []))) as FieldErrors<F>;
  return { fieldErrors, message: Object.keys(fieldErrors).length === 0 ? error.message : null };
}

/**
 * One server action called from an Admin form or button, which reads the result itself (the page re-renders from
 * the server after a change, so nothing here is cached): whether it is pending, and the refusal as placeRefusal
 * places it.
 */
export function useActionCall<F extends string = never>(shownFields: readonly F[] = []) {
  const [pending, setPending] = useState(false);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors<F>>({});
  const [error, setError] = useState<string | null>(null);

  const call = async <T>(action: () => Promise<ActionResult<T>>): Promise<ActionResult<T>> => {
    setPending(true);
    setError(null);
    setFieldErrors({});
    const result = await actionResult(action);
    setPending(false);
    if (!result.ok) {
      const placed = placeRefusal(result.error, shownFields);
      setFieldErrors(placed.fieldErrors);
      setError(placed.message);
    }
    return result;
  };

  /** Forget the last refusal (a dialog closed, a form cancelled). */
  const clear = () => {
    setError(null);
    setFieldErrors({});
  };

  return { call, pending, fieldErrors, error, clear };
}
