'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { actionData } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';
import type { ApiTokenView } from '@/lib/schemas/auth';
import { revokeTokenAction } from '@/app/(app)/settings/actions';
import { tokenKeys } from './queries';

/** Asks before revoking; a revoked token stops working at once. Escape or Cancel keeps it. */
export function RevokeTokenDialog({ token, onClose }: { token: ApiTokenView | null; onClose: () => void }) {
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: (id: string) => actionData(() => revokeTokenAction(id)),
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
    <ConfirmDialog
      open={token !== null}
      title="Revoke token?"
      description={<>“{token?.name}” will stop working immediately. Scripts that use it will get 401 responses.</>}
      confirmLabel="Revoke token"
      pendingLabel="Revoking…"
      pending={revoke.isPending}
      error={revoke.isError ? revoke.error.message : null}
      onCancel={close}
      onConfirm={() => token && revoke.mutate(token.id)}
    />
  );
}
