'use client';

import { Description, Dialog, DialogBackdrop, DialogPanel, DialogTitle } from '@headlessui/react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button } from '@/components/ui/button';
import { Alert } from '@/components/ui/misc';
import { actionData } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';
import type { ApiTokenView } from '@/lib/schemas/auth';
import { useSettingsActions } from './settings-actions';
import { tokenKeys } from './tokens-api';

/** Asks before revoking; a revoked token stops working at once. Escape or Cancel keeps it. */
export function RevokeTokenDialog({ token, onClose }: { token: ApiTokenView | null; onClose: () => void }) {
  const queryClient = useQueryClient();
  const actions = useSettingsActions();
  const revoke = useMutation({
    mutationFn: (id: string) => actionData(() => actions.revokeToken(id)),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: tokenKeys.list });
      onClose();
    },
    onError: async (err) => {
      // Already revoked elsewhere: refresh so it disappears.
      if (err instanceof ApiError && err.code === 'not_found') await queryClient.invalidateQueries({ queryKey: tokenKeys.list });
    },
  });

  const close = () => {
    if (revoke.isPending) return;
    revoke.reset();
    onClose();
  };

  return (
    <Dialog open={token !== null} onClose={close} className="relative z-50">
      <DialogBackdrop className="fixed inset-0 bg-black/40 dark:bg-black/60" />
      <div className="fixed inset-0 flex items-center justify-center p-4">
        <DialogPanel className="w-full max-w-md rounded-lg border border-zinc-200 bg-white p-5 shadow-xl dark:border-zinc-800 dark:bg-zinc-900">
          <DialogTitle className="text-lg font-semibold text-zinc-900 dark:text-zinc-50">Revoke token?</DialogTitle>
          <Description className="mt-2 text-sm break-words text-zinc-600 dark:text-zinc-300">
            “{token?.name}” will stop working immediately. Scripts that use it will get 401 responses.
          </Description>
          {revoke.isError ? (
            <div className="mt-3">
              <Alert>{revoke.error.message}</Alert>
            </div>
          ) : null}
          <div className="mt-5 flex flex-wrap justify-end gap-2">
            <Button variant="secondary" onClick={close} disabled={revoke.isPending} autoFocus>
              Cancel
            </Button>
            <Button variant="danger" onClick={() => token && revoke.mutate(token.id)} disabled={revoke.isPending || !token}>
              {revoke.isPending ? 'Revoking…' : 'Revoke token'}
            </Button>
          </div>
        </DialogPanel>
      </div>
    </Dialog>
  );
}
