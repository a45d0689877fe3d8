'use client';

import { useMutation } from '@tanstack/react-query';
import { actionData, type ActionResult } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';

type Options<S, D> = {
  /** The server action the dialog confirms, called with what the dialog asks about. */
  action: (subject: S) => Promise<ActionResult<D>>;
  /**
   * Bring the cached reads up to date, after the action succeeded and after a `not_found` (the thing was already
   * gone, e.g. deleted in another tab): awaited before the dialog closes, so the list it returns to is current.
   */
  settle?: (subject: S) => unknown;
  /** `not_found` is the outcome the person asked for (a delete): close as after a success. Otherwise it is said. */
  goneIsDone?: boolean;
  onClose: () => void;
  /** After the dialog closed on success (data) or on a gone subject (null): navigate, announce a count. */
  onDone?: (data: D | null, subject: S) => void;
};

/**
 * The mutation behind a confirm dialog (delete, revoke, cancel all): what ConfirmDialog needs — pending, the
 * refusal's message, a cancel that does nothing while the action runs and forgets the last refusal — and `confirm`.
 */
export function useConfirmMutation<S, D>({ action, settle, goneIsDone = false, onClose, onDone }: Options<S, D>) {
  const finish = (data: D | null, subject: S) => {
    mutation.reset();
    onClose();
    onDone?.(data, subject);
  };
  const mutation = useMutation({
    mutationFn: (subject: S) => actionData(() => action(subject)),
    onSuccess: async (data, subject) => {
      await settle?.(subject);
      finish(data, subject);
    },
    onError: async (err, subject) => {
      if (!(err instanceof ApiError && err.code === 'not_found')) return;
      await settle?.(subject);
      if (goneIsDone) finish(null, subject);
    },
  });

  return {
    pending: mutation.isPending,
    error: mutation.isError ? mutation.error.message : null,
    onCancel: () => {
      if (mutation.isPending) return;
      mutation.reset();
      onClose();
    },
    confirm: (subject: S) => mutation.mutate(subject),
  };
}
