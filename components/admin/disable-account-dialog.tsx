'use client';

import { useState } from 'react';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import type { AdminAccountView } from '@/lib/schemas/admin';
import { runAction, type AdminActions } from './admin-actions';

/** Asks before disabling: the account is signed out everywhere and its API tokens stop working at once. */
export function DisableAccountDialog({
  account,
  action,
  onClose,
  onDone,
}: {
  account: AdminAccountView | null;
  action: AdminActions['disableAccount'];
  onClose: () => void;
  onDone: () => void;
}) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const close = () => {
    if (pending) return;
    setError(null);
    onClose();
  };
  const confirm = async () => {
    if (!account) return;
    setPending(true);
    setError(null);
    const result = await runAction(() => action(account.id));
    setPending(false);
    if (result.ok) onDone();
    else setError(result.error.message);
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
