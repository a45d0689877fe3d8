'use client';

import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { PageSection } from '@/components/ui/page-section';
import { signOutEverywhereAction } from '@/app/actions/auth';

/** Ends every session of this account, in every browser, including this one, and revokes all its API tokens. */
export function SignOutEverywhere() {
  const [open, setOpen] = useState(false);
  return (
    <PageSection
      id="sessions"
      title="Sessions"
      description="Signed in on a computer you no longer use, or worried someone has your password? Sign out of every browser at once. This also revokes all your API tokens: scripts using them will get 401 until you create new ones."
    >
      <Button variant="secondary" onClick={() => setOpen(true)}>
        Sign out everywhere…
      </Button>
      <ConfirmDialog
        open={open}
        title="Sign out everywhere?"
        description={
          <>
            Every browser signed in to this account, including this one, will have to sign in again, and every API
            token you have is revoked for good.
          </>
        }
        confirmLabel="Sign out everywhere and revoke tokens"
        pendingLabel="Signing out…"
        onCancel={() => setOpen(false)}
        action={signOutEverywhereAction}
      />
    </PageSection>
  );
}
