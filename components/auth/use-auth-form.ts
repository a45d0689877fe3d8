'use client';

import { startTransition, useActionState, type FormEvent } from 'react';
import { useForm, type DefaultValues, type FieldValues } from 'react-hook-form';
import type { LazyResolver } from '@/lib/forms/lazy-resolver';
import type { AuthFormState } from '@/lib/types/auth-forms';

const INITIAL: AuthFormState = {};

/**
 * The sign-in and sign-up forms' wiring: the server action's answer (useActionState), react-hook-form with the form's
 * check (loaded when the form first gets focus: ADR 053), and the props of a <form> that posts to the action natively
 * before hydration and, with JavaScript, checks in the browser first, then hands the form's data to the action.
 */
export function useAuthForm<T extends FieldValues>(
  action: (prev: AuthFormState, formData: FormData) => Promise<AuthFormState>,
  resolver: LazyResolver<T>,
  /** The fields' starting values, from what the last refused attempt typed (never its password). */
  defaultValues: (typed: AuthFormState['values']) => DefaultValues<T>,
) {
  const [state, formAction, pending] = useActionState<AuthFormState, FormData>(action, INITIAL);
  const form = useForm<T>({ resolver, defaultValues: defaultValues(state.values) });
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const element = event.currentTarget;
    return form.handleSubmit(() => startTransition(() => formAction(new FormData(element))))(event);
  };
  return {
    state,
    /** False until the action first answered. */
    answered: state !== INITIAL,
    pending,
    form,
    formProps: { action: formAction, onSubmit, onFocus: resolver.preload, noValidate: true },
  };
}
