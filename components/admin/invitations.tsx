'use client';

import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input, Select } from '@/components/ui/input';
import { Alert, Badge, EmptyState } from '@/components/ui/misc';
import { LIMITS } from '@/lib/limits';
import type { CreatedInvitation, InvitationStatus, InvitationView } from '@/lib/schemas/admin';
import { Time } from '@/components/ui/time';
import { createInvitationAction, revokeInvitationAction } from '@/app/(app)/admin/actions';
import { useActionCall } from './use-action-call';
import { NewInvitationNotice } from './new-invitation-notice';

const { expiryDays, defaultExpiryDays, note: noteLimit } = LIMITS.invitation;

const STATUS: Record<InvitationStatus, { label: string; tone: 'success' | 'neutral' | 'warning' | 'danger' }> = {
  open: { label: 'Open', tone: 'success' },
  used: { label: 'Used', tone: 'neutral' },
  expired: { label: 'Expired', tone: 'warning' },
  revoked: { label: 'Revoked', tone: 'danger' },
};

/** Create single-use invitation links (shown once), list them, revoke open ones. */
export function Invitations({ invitations }: { invitations: InvitationView[] }) {
  const router = useRouter();
  const [days, setDays] = useState<number>(defaultExpiryDays);
  const [note, setNote] = useState('');
  const [created, setCreated] = useState<CreatedInvitation | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);
  const creating = useActionCall(['note']);
  const revokeCall = useActionCall();
  // One message line for both: the last call's refusal.
  const error = creating.error ?? revokeCall.error;

  const create = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    revokeCall.clear();
    const result = await creating.call(() => createInvitationAction({ expiresInDays: days, ...(note.trim() ? { note } : {}) }));
    if (!result.ok) return;
    setCreated(result.data);
    setNote('');
    router.refresh();
  };

  const revoke = async (id: string) => {
    setRevoking(id);
    creating.clear();
    const result = await revokeCall.call(() => revokeInvitationAction(id));
    setRevoking(null);
    if (result.ok) router.refresh();
  };

  return (
    <div className="space-y-4">
      <form onSubmit={create} noValidate aria-labelledby="create-invitation-heading" className="space-y-3">
        <h3 id="create-invitation-heading" className="font-medium text-zinc-900 dark:text-zinc-100">
          Create an invitation link
        </h3>
        <div className="grid gap-3 sm:grid-cols-[12rem_minmax(0,1fr)]">
          <Field label="Expires after">
            <Select value={days} onChange={(e) => setDays(Number(e.target.value))}>
              {expiryDays.map((d) => (
                <option key={d} value={d}>
                  {d === 1 ? '1 day' : `${d} days`}
                </option>
              ))}
            </Select>
          </Field>
          <Field label="Note" hint={`Optional, for you: who it is for (up to ${noteLimit.maxChars} characters).`} error={creating.fieldErrors.note}>
            <Input type="text" autoComplete="off" value={note} onChange={(e) => setNote(e.target.value)} />
          </Field>
        </div>
        <Button type="submit" pending={creating.pending}>
          {creating.pending ? 'Creating…' : 'Create invitation link'}
        </Button>
      </form>
      {error ? <Alert>{error}</Alert> : null}
      {created ? <NewInvitationNotice invitation={created} onDismiss={() => setCreated(null)} /> : null}

      {invitations.length === 0 ? (
        <EmptyState title="No invitations yet">An invitation link lets one person create an account while sign-up is closed.</EmptyState>
      ) : (
        <ul aria-label="Invitations" className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {invitations.map((invitation) => {
            const status = STATUS[invitation.status];
            const name = invitation.note || `created ${invitation.createdAt.slice(0, 16).replace('T', ' ')} UTC`;
            return (
              <li key={invitation.id} className="flex flex-wrap items-center justify-between gap-3 p-3">
                <div className="min-w-0 flex-1 space-y-1">
                  <p className="flex flex-wrap items-center gap-2">
                    <span className="min-w-0 font-medium break-words text-zinc-900 dark:text-zinc-100">{invitation.note || 'Invitation'}</span>
                    <Badge tone={status.tone}>{status.label}</Badge>
                  </p>
                  <p className="text-xs break-words text-zinc-600 dark:text-zinc-400">
                    Created <Time iso={invitation.createdAt} format="date" /> ·{' '}
                    {invitation.usedBy ? (
                      <>used by {invitation.usedBy.email}</>
                    ) : (
                      <>
                        {invitation.status === 'expired' ? 'expired' : 'expires'}{' '}
                        <Time iso={invitation.expiresAt} format="datetime" />
                      </>
                    )}
                  </p>
                </div>
                {invitation.status === 'open' ? (
                  <Button
                    variant="secondary"
                    size="sm"
                    onClick={() => revoke(invitation.id)}
                    disabled={revoking === invitation.id}
                    aria-label={`Revoke invitation ${name}`}
                  >
                    {revoking === invitation.id ? 'Revoking…' : 'Revoke'}
                  </Button>
                ) : null}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
