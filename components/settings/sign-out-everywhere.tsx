'use client';

import { Description, Dialog, DialogBackdrop, DialogPanel, DialogTitle } from '@headlessui/react';
import { useState } from 'react';
import { useFormStatus } from 'react-dom';
import { Button } from '@/components/ui/button';

type Action = (formData: FormData) => void | Promise<void>;

function ConfirmButton() {
  const { pending } = useFormStatus();
  return (
    <Button type="submit" variant="danger" disabled={pending}>
      {pending ? 'Signing out…' : 'Sign out everywhere and revoke tokens'}
    </Button>
  );
}

/** Ends every session of this account, in every browser, including this one, and revokes all its API tokens. */
export function SignOutEverywhere({ action }: { action: Action }) {
  const [open, setOpen] = useState(false);
  return (
    <section aria-labelledby="sessions-heading" className="space-y-3">
      <h2 id="sessions-heading" className="text-lg font-semibold text-zinc-900 dark:text-zinc-50">
        Sessions
      </h2>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        Signed in on a computer you no longer use, or worried someone has your password? Sign out of every browser at
        once. This also revokes all your API tokens: scripts using them will get 401 until you create new ones.
      </p>
      <Button variant="secondary" onClick={() => setOpen(true)}>
        Sign out everywhere…
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} className="relative z-50">
        <DialogBackdrop className="fixed inset-0 bg-black/40 dark:bg-black/60" />
        <div className="fixed inset-0 flex items-center justify-center p-4">
          <DialogPanel className="w-full max-w-md rounded-lg border border-zinc-200 bg-white p-5 shadow-xl dark:border-zinc-800 dark:bg-zinc-900">
            <DialogTitle className="text-lg font-semibold text-zinc-900 dark:text-zinc-50">Sign out everywhere?</DialogTitle>
            <Description className="mt-2 text-sm text-zinc-600 dark:text-zinc-300">
              Every browser signed in to this account, including this one, will have to sign in again, and every API
              token you have is revoked for good.
            </Description>
            <form action={action} className="mt-5 flex flex-wrap justify-end gap-2">
              <Button variant="secondary" onClick={() => setOpen(false)} autoFocus>
                Cancel
              </Button>
              <ConfirmButton />
            </form>
          </DialogPanel>
        </div>
      </Dialog>
    </section>
  );
}
