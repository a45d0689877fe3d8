import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { SkillsManager } from '@/components/skills/skills-manager';
import { PageHeader } from '@/components/ui/misc';
import { currentUser } from '@/server/auth/require-user';
import { listSkills } from '@/server/skills/skills';

export const metadata: Metadata = { title: 'Skills' };

export default async function SkillsPage() {
  const user = await currentUser();
  if (!user) redirect('/sign-in?callbackUrl=%2Fskills');
  const skills = await listSkills(user.id);
  return (
    <div className="mx-auto w-full max-w-3xl space-y-8">
      <PageHeader title="Skills" />
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        Instruction packs your agents can use. An agent with a skill sees its name and description, and reads the rest when it needs it.
      </p>
      <SkillsManager initial={skills} />
    </div>
  );
}
