'use client';

import { useQuery } from '@tanstack/react-query';
import { Alert } from '@/components/ui/misc';
import { SkillForm } from './skill-form';
import { skillQuery } from './queries';

/** One skill's edit form, once its body is loaded (the list carries names and descriptions only). */
export function SkillEditor({ id, onDone }: { id: string; onDone: () => void }) {
  const skill = useQuery(skillQuery(id));
  if (skill.isPending) {
    return (
      <p role="status" className="text-sm text-zinc-600 dark:text-zinc-400">
        Loading the skill…
      </p>
    );
  }
  if (skill.isError) return <Alert>The skill could not be loaded: {skill.error.message}</Alert>;
  return <SkillForm skill={skill.data} onDone={onDone} onCancel={onDone} />;
}
