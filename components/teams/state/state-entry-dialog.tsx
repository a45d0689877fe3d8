'use client';

import { useRef, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert } from '@/components/ui/misc';
import { Modal } from '@/components/ui/modal';
import { actionData } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';
import { forgetKeyAfterSuccess, keyForDraft, type KeyedDraft } from '@/lib/idempotency/draft-key';
import { newClientId } from '@/lib/idempotency/client-id';
import type { ApiStateEntry } from '@/lib/types/team';
import { teamKeys } from '../queries';
import { createStateEntryAction, updateStateEntryAction } from '@/app/(app)/teams/actions';
import { StateConflict } from './state-conflict';
import { draftErrors, draftSignature, hasErrors, type DraftErrors, type MyVersion, type StateDraft } from './state-draft';
import { StateEntryForm } from './state-entry-form';
import { KIND_LABEL } from './state-view';

/**
 * What the dialog is for: adding an entry, editing one (from the revision the person saw), or settling a save that
 * met a newer revision — an edit, an archive or a restore (the panel opens that one directly).
 */
export type StateDialogTask =
  | { type: 'add' }
  | { type: 'edit'; entry: ApiStateEntry }
  | { type: 'conflict'; mine: MyVersion; theirs: ApiStateEntry };

type Phase =
  | { type: 'form'; draft: StateDraft; base: ApiStateEntry | null }
  | { type: 'conflict'; mine: MyVersion; theirs: ApiStateEntry };

const initialPhase = (task: StateDialogTask): Phase =>
  task.type === 'add'
    ? { type: 'form', draft: { kind: 'objective', title: '', content: '' }, base: null }
    : task.type === 'edit'
      ? { type: 'form', draft: { kind: task.entry.kind, title: task.entry.title, content: task.entry.content }, base: task.entry }
      : { type: 'conflict', mine: task.mine, theirs: task.theirs };

type SaveResult = { updated: true; entry: ApiStateEntry } | { updated: false; entry: ApiStateEntry; mine: MyVersion };

/** Add or edit a state entry; on a conflict, both versions side by side and the person's choice. */
export function StateEntryDialog({ teamId, task, onClose }: { teamId: string; task: StateDialogTask; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [phase, setPhase] = useState<Phase>(() => initialPhase(task));
  const [errors, setErrors] = useState<DraftErrors>({});
  const createKey = useRef<KeyedDraft | null>(null);

  const save = useMutation({
    mutationFn: async ({ mine, base, draft }: { mine: MyVersion; base: ApiStateEntry | null; draft: StateDraft }): Promise<SaveResult> => {
      if (!base) {
        createKey.current = keyForDraft(createKey.current, draftSignature(draft), newClientId);
        const requestId = createKey.current.key;
        const { entry } = await actionData(() => createStateEntryAction(teamId, { requestId, kind: draft.kind, title: draft.title, content: draft.content }));
        createKey.current = forgetKeyAfterSuccess(createKey.current, requestId);
        return { updated: true, entry };
      }
      const { updated, entry } = await actionData(() =>
        updateStateEntryAction(teamId, base.id, { expectedRevision: base.revision, title: mine.title, content: mine.content, status: mine.status }),
      );
      return updated ? { updated: true, entry } : { updated: false, entry, mine };
    },
    onSuccess: (result) => {
      void queryClient.invalidateQueries({ queryKey: teamKeys.state(teamId) });
      if (result.updated) onClose();
      else setPhase({ type: 'conflict', mine: result.mine, theirs: result.entry });
    },
    onError: (e) => {
      if (e instanceof ApiError) setErrors({ title: e.fields.title, content: e.fields.content });
    },
  });

  const submitForm = () => {
    if (phase.type !== 'form') return;
    const found = draftErrors(phase.draft);
    setErrors(found);
    if (hasErrors(found)) return;
    const mine: MyVersion = { title: phase.draft.title, content: phase.draft.content, status: phase.base?.status ?? 'active' };
    save.mutate({ mine, base: phase.base, draft: phase.draft });
  };

  const close = () => !save.isPending && onClose();
  const failure =
    save.isError && !(save.error instanceof ApiError && (save.error.fields.title || save.error.fields.content))
      ? `Couldn’t save: ${save.error instanceof ApiError ? save.error.message : 'try again.'}`
      : undefined;

  const title =
    phase.type === 'conflict' ? 'This entry changed while you were editing' : phase.base ? `Edit ${KIND_LABEL[phase.base.kind].one.toLowerCase()}` : 'Add to team state';
  const description =
    phase.type === 'conflict'
      ? 'Nothing was saved. Choose which version to keep, or edit yours again starting from the current one.'
      : phase.base
        ? `Editing revision ${phase.base.revision}. If someone changes it before you save, you’ll see both versions.`
        : 'Members read it in their shared context like any entry. Entries count toward the team’s 20, archived ones included.';

  return (
    <Modal open onClose={close} busy={save.isPending} title={title} description={description} className="max-w-2xl">
      {phase.type === 'form' ? (
        <StateEntryForm
          draft={phase.draft}
          onChange={(draft) => setPhase({ ...phase, draft })}
          onSubmit={submitForm}
          onCancel={close}
          kindEditable={!phase.base}
          errors={errors}
          failure={failure}
          pending={save.isPending}
          submitLabel={phase.base ? 'Save' : 'Add entry'}
        />
      ) : (
        <>
          <StateConflict
            mine={phase.mine}
            theirs={phase.theirs}
            pending={save.isPending}
            onKeepTheirs={onClose}
            onKeepMine={() => save.mutate({ mine: phase.mine, base: phase.theirs, draft: { kind: phase.theirs.kind, title: phase.mine.title, content: phase.mine.content } })}
            onEditAgain={() => {
              save.reset();
              setErrors({});
              setPhase({ type: 'form', draft: { kind: phase.theirs.kind, title: phase.mine.title, content: phase.mine.content }, base: phase.theirs });
            }}
          />
          {failure ? (
            <div className="mt-3">
              <Alert>{failure}</Alert>
            </div>
          ) : null}
        </>
      )}
    </Modal>
  );
}
