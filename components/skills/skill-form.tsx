'use client';

import { useId, useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { createSkillAction, updateSkillAction } from '@/app/(app)/skills/actions';
import { actionData, ActionFailure } from '@/lib/action-result';
import { LIMITS } from '@/lib/limits';
import { measureText } from '@/lib/text-bounds';
import type { SkillView } from '@/lib/types/skill';
import { Button } from '@/components/ui/button';
import { CharCounter } from '@/components/ui/char-counter';
import { Field } from '@/components/ui/field';
import { Input, Textarea } from '@/components/ui/input';
import { Alert } from '@/components/ui/misc';
import { skillKeys } from './queries';

type Values = { name: string; description: string; body: string };
const B = LIMITS.skills;

/**
 * Write a skill, or edit one (`skill`): name, description and body, each with its counter (the bounds the server
 * checks, measured by the same rule). The server's field errors land beside their fields; the text stays on error.
 */
export function SkillForm({ skill, onDone, onCancel }: { skill?: SkillView; onDone: (saved: SkillView) => void; onCancel?: () => void }) {
  const queryClient = useQueryClient();
  const id = useId();
  const [values, setValues] = useState<Values>({ name: skill?.name ?? '', description: skill?.description ?? '', body: skill?.body ?? '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const set = (field: keyof Values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [field]: e.target.value }));
  const over = (['name', 'description', 'body'] as const).some((f) => measureText(values[f], B[f]).over);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setPending(true);
    setErrors({});
    setFormError(null);
    try {
      const saved = await actionData(() => (skill ? updateSkillAction(skill.id, values) : createSkillAction(values)));
      await queryClient.invalidateQueries({ queryKey: skillKeys.all });
      if (!skill) setValues({ name: '', description: '', body: '' });
      onDone(saved);
    } catch (err) {
      if (err instanceof ActionFailure && err.fields && Object.keys(err.fields).length) setErrors(err.fields);
      else setFormError(err instanceof Error ? err.message : 'Could not save the skill');
    } finally {
      setPending(false);
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} className="space-y-4" aria-label={skill ? `Edit ${skill.name}` : 'Write a skill'} noValidate>
      <Field label="Name" error={errors.name} hint={<CharCounter text={values.name} bound={B.name} id={`${id}-name`} />}>
        <Input value={values.name} onChange={set('name')} required autoComplete="off" />
      </Field>
      <Field label="Description" error={errors.description} hint={<><span>When to use it: the agent sees this line. </span><CharCounter text={values.description} bound={B.description} /></>}>
        <Textarea value={values.description} onChange={set('description')} rows={2} required />
      </Field>
      <Field label="Instructions" error={errors.body} hint={<><span>Markdown; read by the agent on demand. </span><CharCounter text={values.body} bound={B.body} /></>}>
        <Textarea value={values.body} onChange={set('body')} rows={10} className="font-mono text-[13px]" />
      </Field>
      {formError ? <Alert>{formError}</Alert> : null}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" pending={pending} disabled={over}>
          {skill ? 'Save changes' : 'Add skill'}
        </Button>
        {onCancel ? (
          <Button type="button" variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
        ) : null}
      </div>
    </form>
  );
}
