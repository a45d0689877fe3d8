'use client';

import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { deleteSkillAction } from '@/app/(app)/skills/actions';
import type { SkillSummary } from '@/lib/types/skill';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Alert, Card, EmptyState } from '@/components/ui/misc';
import { PageSection } from '@/components/ui/page-section';
import { useConfirmMutation } from '@/components/ui/use-confirm-mutation';
import { SkillEditor } from './skill-editor';
import { SkillForm } from './skill-form';
import { SkillImport } from './skill-import';
import { skillKeys, skillsQuery } from './queries';

/**
 * The Skills page: the account's skills (name, description, files), each editable and deletable (the kit's confirm
 * dialog; a skill an agent uses is refused and the dialog says which agents), and writing or importing a new one.
 */
export function SkillsManager({ initial }: { initial: SkillSummary[] }) {
  const queryClient = useQueryClient();
  const skills = useQuery({ ...skillsQuery(), initialData: initial });
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<SkillSummary | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const removal = useConfirmMutation({
    action: (s: SkillSummary) => deleteSkillAction(s.id),
    settle: () => queryClient.invalidateQueries({ queryKey: skillKeys.all }),
    goneIsDone: true,
    onClose: () => setDeleting(null),
    onDone: (_data, s) => setNotice(`Deleted ${s.name}`),
  });
  const list = skills.data ?? [];

  return (
    <div className="space-y-10">
      <PageSection id="your-skills" title="Your skills" description="Attach a skill to an agent in the agent's form.">
        {notice ? (
          <p role="status" className="text-sm text-zinc-600 dark:text-zinc-400">
            {notice}
          </p>
        ) : null}
        {skills.isError ? <Alert>Your skills could not be loaded: {skills.error.message}</Alert> : null}
        {list.length === 0 ? (
          <EmptyState title="No skills yet">Write one below, or import a ZIP with a SKILL.md.</EmptyState>
        ) : (
          <ul className="space-y-3" aria-label="Skills">
            {list.map((skill) => (
              <li key={skill.id}>
                <Card className="space-y-2 p-4">
                  {editing === skill.id ? (
                    <SkillEditor id={skill.id} onDone={() => setEditing(null)} />
                  ) : (
                    <>
                      <h3 className="break-words text-base font-semibold text-zinc-900 dark:text-zinc-50">{skill.name}</h3>
                      <p className="break-words whitespace-pre-wrap text-sm text-zinc-700 dark:text-zinc-300">{skill.description}</p>
                      {skill.files.length ? (
                        <p className="break-words text-xs text-zinc-500 dark:text-zinc-400">Files: {skill.files.map((f) => f.path).join(', ')}</p>
                      ) : null}
                      <div className="flex flex-wrap gap-2">
                        <Button variant="secondary" onClick={() => setEditing(skill.id)} aria-label={`Edit ${skill.name}`}>
                          Edit
                        </Button>
                        <Button variant="secondary" onClick={() => setDeleting(skill)} aria-label={`Delete ${skill.name}`}>
                          Delete
                        </Button>
                      </div>
                    </>
                  )}
                </Card>
              </li>
            ))}
          </ul>
        )}
      </PageSection>
      <PageSection id="new-skill" title="Write a skill" description="A name, when to use it, and the instructions.">
        <SkillForm onDone={(s) => setNotice(`Added ${s.name}`)} />
      </PageSection>
      <PageSection id="import-skill" title="Import a skill">
        <SkillImport onImported={(s) => setNotice(`Imported ${s.name}`)} />
      </PageSection>
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete ${deleting?.name ?? 'skill'}?`}
        description="The skill and its files are removed. Agents that use it must let go of it first."
        confirmLabel="Delete skill"
        pendingLabel="Deleting…"
        pending={removal.pending}
        error={removal.error}
        onCancel={removal.onCancel}
        onConfirm={() => deleting && removal.confirm(deleting)}
      />
    </div>
  );
}
