'use client';

import { FilePickerButton } from './file-picker-button';
import { PaperclipIcon } from './paperclip-icon';
import { UploadStatus } from './upload-status';
import type { Attachments } from './use-attachments';

/**
 * The one attach control of both composers (the chat's and the team's request): an "Attach files" button, and the
 * files attached so far with their progress. Drag and drop and paste land through the composer's container
 * (`attachments.dropProps`, `attachments.onPaste`), where the person is already typing.
 */
export function AttachControl({ attachments }: { attachments: Attachments }) {
  return (
    <div className="space-y-1.5">
      <UploadStatus uploads={attachments} label="Attachments" />
    </div>
  );
}

/** The composer's "Attach files" button, placed beside its Send. */
export function AttachButton({ attachments }: { attachments: Attachments }) {
  return (
    <FilePickerButton onFiles={attachments.add} label="Attach files">
      <PaperclipIcon className="inline-block shrink-0" />
      <span className="ml-1 hidden sm:inline">Attach</span>
    </FilePickerButton>
  );
}

/** The drop highlight a composer's container takes while a file is dragged over it. */
export const dropHighlight = (dragging: boolean) =>
  dragging ? 'ring-2 ring-indigo-500 ring-offset-2 ring-offset-white dark:ring-indigo-400 dark:ring-offset-zinc-950' : '';
