'use client';

import { useState } from 'react';
import { actionResult, type ActionResult } from '@/lib/action-result';

type FieldErrors<F extends string> = Partial<Record<F, string>>;

/**
 * One server action called from an Admin form or button, which reads the result itself (the page re-renders from
 * the server after a change, so nothing here is cached): whether it is pending, the refusal's errors for the fields
 * the form shows, and its message when none of those fields has one — so no refusal goes unsaid.
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
      const fields = result.error.fields ?? {};
      const shown = Object.fromEntries(shownFields.filter((f) => fields[f]).map((f) => [f, fields[f]])) as FieldErrors<F>;
      setFieldErrors(shown);
      if (Object.keys(shown).length === 0) setError(result.error.message);
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
