'use client';

import { Description, Dialog, DialogBackdrop, DialogPanel, DialogTitle } from '@headlessui/react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Alert } from '@/components/ui/misc';
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
    <Dialog open={account !== null} onClose={close} className="relative z-50">
      <DialogBackdrop className="fixed inset-0 bg-black/40 dark:bg-black/60" />
      <div className="fixed inset-0 flex items-center justify-center p-4">
        <DialogPanel className="w-full max-w-md rounded-lg border border-zinc-200 bg-white p-5 shadow-xl dark:border-zinc-800 dark:bg-zinc-900">
          <DialogTitle className="text-lg font-semibold text-zinc-900 dark:text-zinc-50">Disable account?</DialogTitle>
          <Description className="mt-2 text-sm break-words text-zinc-600 dark:text-zinc-300">
            {account?.email} will be signed out everywhere at once, can’t sign in, and its API tokens will get 401
            responses. Its agents, conversations and teams are kept; you can enable the account again later.
          </Description>
          {error ? (
            <div className="mt-3">
              <Alert>{error}</Alert>
            </div>
          ) : null}
          <div className="mt-5 flex flex-wrap justify-end gap-2">
            <Button variant="secondary" onClick={close} disabled={pending} autoFocus>
              Cancel
            </Button>
            <Button variant="danger" onClick={confirm} disabled={pending || !account}>
              {pending ? 'Disabling…' : 'Disable account'}
            </Button>
          </div>
        </DialogPanel>
      </div>
    </Dialog>
  );
}
