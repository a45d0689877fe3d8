'use client';

import { useQueryClient } from '@tanstack/react-query';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { useConfirmMutation } from '@/components/ui/use-confirm-mutation';
import type { ApiFile, FileScope } from '@/lib/types/file';
import { deleteFileAction } from '@/app/(app)/files/actions';
import { fileKeys } from './queries';

/**
 * "Delete file?" on the kit's one confirm dialog. Every version goes; a member's run can't delete (only the person
 * can, here). A file already gone (deleted in another tab) closes the dialog as if this delete had done it.
 */
export function DeleteFileDialog({ file, scope, onClose }: { file: ApiFile | null; scope: FileScope; onClose: () => void }) {
  const queryClient = useQueryClient();
  const mutation = useConfirmMutation({
    action: (subject: ApiFile) => deleteFileAction(subject.id),
    goneIsDone: true,
    settle: async (subject) => {
      queryClient.removeQueries({ queryKey: fileKeys.file(subject.id) });
      await queryClient.invalidateQueries({ queryKey: fileKeys.scope(scope) });
    },
    onClose,
  });
  return (
    <ConfirmDialog
      open={file !== null}
      title={`Delete ${file?.name ?? 'file'}?`}
      description={
        file && file.revision > 1
          ? `All ${file.revision} versions of this file are deleted. This can’t be undone.`
          : 'The file is deleted. This can’t be undone.'
      }
      confirmLabel="Delete file"
      pendingLabel="Deleting…"
      pending={mutation.pending}
      error={mutation.error}
      onCancel={mutation.onCancel}
      onConfirm={() => file && mutation.confirm(file)}
    />
  );
}
