'use client';

import type { ReactNode } from 'react';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import type { ActionResult } from '@/lib/action-result';
import { useActionCall } from './use-action-call';

type Props = {
  open: boolean;
  /** The thing's name, for the title ("Remove {name}?"). */
  name: string;
  /** What removing it leaves behind, in plain words (or what it changes, read when the dialog opens). */
  description: ReactNode;
  /** The confirm button's label, e.g. "Remove provider". */
  confirmLabel: string;
  /** The server action that removes it. */
  remove: () => Promise<ActionResult<unknown>>;
  /** The dialog closes: cancelled, or after a removal (then `onRemoved` runs first). */
  onClose: () => void;
  /** After the server removed it: read the list again. */
  onRemoved: () => void;
};

/**
 * The "Remove …?" dialog of a configured server (a model provider, an MCP server): it calls the removal itself and,
 * when refused, says why inside the dialog, which stays open; cancelling forgets that refusal.
 */
export function ConfirmRemoval({ open, name, description, confirmLabel, remove, onClose, onRemoved }: Props) {
  const removal = useActionCall();
  const confirm = async () => {
    const result = await removal.call(remove);
    if (!result.ok) return;
    onRemoved();
    onClose();
  };
  return (
    <ConfirmDialog
      open={open}
      title={`Remove ${name}?`}
      description={description}
      confirmLabel={confirmLabel}
      pendingLabel="Removing…"
      pending={removal.pending}
      error={removal.error}
      onCancel={() => {
        onClose();
        removal.clear();
      }}
      onConfirm={confirm}
    />
  );
}
