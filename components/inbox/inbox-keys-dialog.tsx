'use client';

import { DialogCloseRow } from '@/components/ui/dialog-close-row';
import { Modal } from '@/components/ui/modal';
import { INBOX_KEYS } from './inbox-keys';

/** "?" on the Inbox page: the keys it takes, from the same table its handler reads. */
export function InboxKeysDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Modal open={open} title="Keyboard shortcuts" description="Keys are ignored while you type in a field." onClose={onClose}>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm">
        {INBOX_KEYS.map(({ key, label }) => (
          <div key={key} className="contents">
            <dt>
              <kbd className="rounded border border-zinc-300 px-1.5 py-0.5 font-mono text-xs dark:border-zinc-700">{key}</kbd>
            </dt>
            <dd className="text-zinc-700 dark:text-zinc-300">{label}</dd>
          </div>
        ))}
      </dl>
      <DialogCloseRow onClose={onClose} className="mt-4" />
    </Modal>
  );
}
