'use client';

import { useQuery } from '@tanstack/react-query';
import { useController, type Control } from 'react-hook-form';
import type { AgentCreate, AgentCreateInput } from '@/lib/schemas/agent';
import { LIMITS } from '@/lib/limits';
import { Button } from '@/components/ui/button';
import { skillsQuery } from '@/components/skills/queries';
import { CheckboxFieldset, CheckboxOption } from './form-options';

/**
 * The agent form's skills: the account's skills as checkboxes (name, and its description under it), writing `skills`.
 * The prompt lists each chosen skill's name and description; the agent reads a body with read_skill when it needs
 * it. A skill the agent names that the list no longer has stays listed so it can be removed.
 */
export function SkillsField({ control }: { control: Control<AgentCreateInput, unknown, AgentCreate> }) {
  const { field, fieldState } = useController({ control, name: 'skills' });
  const skills = useQuery(skillsQuery());
  const chosen: string[] = field.value ?? [];
  const listed = skills.data ?? [];
  const gone = skills.data ? chosen.filter((id) => !listed.some((s) => s.id === id)) : [];
  const toggle = (id: string, on: boolean) => field.onChange(on ? [...chosen.filter((c) => c !== id), id] : chosen.filter((c) => c !== id));

  return (
    <CheckboxFieldset
      legend="Skills"
      hint={`Instruction packs from your Skills page. The agent sees each one's name and description and reads the rest when it needs it (at most ${LIMITS.skills.perAgent}).`}
      error={fieldState.error?.message}
    >
      {skills.isPending ? (
        <p role="status" className="text-sm text-zinc-600 dark:text-zinc-400">
          Loading skills…
        </p>
      ) : skills.isError ? (
        <div role="alert" className="flex flex-wrap items-center gap-2 text-sm text-red-700 dark:text-red-400">
          <span>Your skills could not be loaded: {skills.error.message}</span>
          <Button type="button" variant="secondary" onClick={() => void skills.refetch()}>
            Try again
          </Button>
        </div>
      ) : listed.length === 0 && gone.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">No skills yet. Write or import one on the Skills page.</p>
      ) : (
        <div className="space-y-2" role="group" aria-label="Skills">
          {listed.map((skill) => (
            <CheckboxOption
              key={skill.id}
              label={<span className="break-words">{skill.name}</span>}
              description={skill.description}
              checked={chosen.includes(skill.id)}
              onBlur={field.onBlur}
              onChange={(on) => toggle(skill.id, on)}
            />
          ))}
          {gone.map((id) => (
            <CheckboxOption key={id} label="A skill that no longer exists" description="Clear it to save" checked onBlur={field.onBlur} onChange={(on) => toggle(id, on)} />
          ))}
        </div>
      )}
    </CheckboxFieldset>
  );
}
