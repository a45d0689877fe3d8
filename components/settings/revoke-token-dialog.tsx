'use client';

import { useQueryClient } from '@tanstack/react-query';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { useConfirmMutation } from '@/components/ui/use-confirm-mutation';
import type { ApiTokenView } from '@/lib/types/api-token';
import { revokeTokenAction } from '@/app/(app)/settings/actions';
import { tokenKeys } from './queries';

/** Asks before revoking; a revoked token stops working at once. Escape or Cancel keeps it. */
export function RevokeTokenDialog({ token, onClose }: { token: ApiTokenView | null; onClose: () => void }) {
  const queryClient = useQueryClient();
  // Revoked, or already revoked elsewhere: refresh so it disappears.
  const { confirm, ...dialog } = useConfirmMutation({
    action: revokeTokenAction,
    settle: () => queryClient.invalidateQueries({ queryKey: tokenKeys.list }),
    onClose,
  });

  return (
    <ConfirmDialog
      open={token !== null}
      title="Revoke token?"
      description={<>“{token?.name}” will stop working immediately. Scripts that use it will get 401 responses.</>}
      confirmLabel="Revoke token"
      pendingLabel="Revoking…"
      {...dialog}
      onConfirm={() => token && confirm(token.id)}
    />
  );
}
