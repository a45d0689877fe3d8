'use client';

import { useRef, useState, useSyncExternalStore } from 'react';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import type { CreatedInvitation } from '@/lib/schemas/admin';
import { LocalTime } from './local-time';

const noSubscription = () => () => {};

/** The one time an invitation link is shown: the full address, a Copy button, and when it expires. */
export function NewInvitationNotice({ invitation, onDismiss }: { invitation: CreatedInvitation; onDismiss: () => void }) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [copyState, setCopyState] = useState<'idle' | 'copied' | 'manual'>('idle');
  // The server knows the path; the address this browser reached the app at is the one to share.
  const origin = useSyncExternalStore(noSubscription, () => window.location.origin, () => '');
  const link = `${origin}${invitation.path}`;

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link);
      setCopyState('copied');
    } catch {
      inputRef.current?.select();
      setCopyState('manual');
    }
  };

  return (
    <div
      role="region"
      aria-label="New invitation link"
      className="space-y-3 rounded-md border border-emerald-300 bg-emerald-50 p-4 dark:border-emerald-900 dark:bg-emerald-950"
    >
      <p className="text-sm font-medium break-words text-emerald-900 dark:text-emerald-100">
        Invitation link created. Copy it now: it won’t be shown again. It works once, until{' '}
        <LocalTime iso={invitation.expiresAt} withTime />.
      </p>
      <div className="flex flex-col gap-2 sm:flex-row">
        <Input
          ref={inputRef}
          readOnly
          value={link}
          aria-label="Invitation link"
          className="min-w-0 flex-1 font-mono"
          onFocus={(e) => e.currentTarget.select()}
        />
        <Button variant="secondary" onClick={copy}>
          Copy
        </Button>
      </div>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p role="status" className="text-sm text-emerald-800 dark:text-emerald-200">
          {copyState === 'copied' ? 'Copied to the clipboard.' : copyState === 'manual' ? 'Selected: press Ctrl+C (⌘C) to copy.' : ''}
        </p>
        <Button variant="ghost" size="sm" onClick={onDismiss}>
          Done
        </Button>
      </div>
    </div>
  );
}
