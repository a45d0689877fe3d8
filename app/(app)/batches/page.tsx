import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { BatchList } from '@/components/batches/batch-list';
import { ButtonLink } from '@/components/ui/button-link';
import { PageHeader } from '@/components/ui/misc';
import { currentUser } from '@/server/auth/require-user';

export const metadata: Metadata = { title: 'Batches' };

/** The person's batches (issue 30); each opens its own page. A batch starts here, from an agent or from a team member. */
export default async function BatchesPage() {
  if (!(await currentUser())) redirect('/sign-in');
  return (
    <>
      <PageHeader title="Batches">
        <ButtonLink href="/batches/new">Run over a list</ButtonLink>
      </PageHeader>
      <BatchList />
    </>
  );
}
