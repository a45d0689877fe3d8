'use client';

import { useSyncExternalStore } from 'react';
import { SecretOnce } from '@/components/ui/secret-once';
import type { CreatedInvitation } from '@/lib/schemas/admin';
import { Time } from '@/components/ui/time';

const noSubscription = () => () => {};

/** The one time an invitation link is shown: the full address and when it expires. */
export function NewInvitationNotice({ invitation, onDismiss }: { invitation: CreatedInvitation; onDismiss: () => void }) {
  // The server knows the path; the address this browser reached the app at is the one to share.
  const origin = useSyncExternalStore(noSubscription, () => window.location.origin, () => '');
  return (
    <SecretOnce
      label="New invitation link"
      fieldLabel="Invitation link"
      value={`${origin}${invitation.path}`}
      message={
        <>
          Invitation link created. Copy it now: it won’t be shown again. It works once, until{' '}
          <Time iso={invitation.expiresAt} format="datetime" />.
        </>
      }
      onDismiss={onDismiss}
    />
  );
}
