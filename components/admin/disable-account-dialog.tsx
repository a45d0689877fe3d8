'use client';

import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import type { AdminAccountView } from '@/lib/schemas/admin';
import { disableAccountAction } from '@/app/(app)/admin/actions';
import { useActionCall } from './use-action-call';

/** Asks before disabling: the account is signed out everywhere and its API tokens stop working at once. */
export function DisableAccountDialog({
  account,
  onClose,
  onDone,
}: {
  account: AdminAccountView | null;
  onClose: () => void;
  onDone: () => void;
}) {
  const { call, pending, error, clear } = useActionCall();

  const close = () => {
    if (pending) return;
    clear();
    onClose();
  };
  const confirm = async () => {
    if (!account) return;
    const result = await call(() => disableAccountAction(account.id));
    if (result.ok) onDone();
  };

  return (
    <ConfirmDialog
      open={account !== null}
      title="Disable account?"
      description={
        <>
          {account?.email} will be signed out everywhere at once, can’t sign in, and its API tokens will get 401
          responses. Its agents, conversations and teams are kept; you can enable the account again later.
        </>
      }
      confirmLabel="Disable account"
      pendingLabel="Disabling…"
      pending={pending}
      error={error}
      onCancel={close}
      onConfirm={confirm}
    />
  );
}
