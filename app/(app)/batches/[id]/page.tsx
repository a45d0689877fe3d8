import type { Metadata } from 'next';
import { notFound, redirect } from 'next/navigation';
import { cache } from 'react';
import { HydrationBoundary, QueryClient, dehydrate } from '@tanstack/react-query';
import { BatchDetail } from '@/components/batches/batch-detail';
import { batchKeys } from '@/components/batches/queries';
import type { BatchView } from '@/lib/types/batch';
import { currentUser } from '@/server/auth/require-user';
import { oneBatchView } from '@/server/batches/api';
import { getBatch } from '@/server/batches/store';
import { AppError } from '@/server/http/errors';

type Props = { params: Promise<{ id: string }> };

/** The batch as GET /api/v1/batches/:id answers it (the same owner check); null when missing or someone else's. */
const loadBatch = cache(async (id: string): Promise<BatchView | null> => {
  const user = await currentUser();
  if (!user) redirect('/sign-in');
  try {
    return await oneBatchView(await getBatch(user.id, id));
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return null;
    throw err;
  }
});

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const batch = await loadBatch((await params).id);
  return { title: batch ? `Batch with ${batch.target.name}` : 'Batch not found' };
}

/** Rendered with the batch (content on first paint); the page follows it by push from there. */
export default async function BatchPage({ params }: Props) {
  const { id } = await params;
  const batch = await loadBatch(id);
  if (!batch) notFound();
  const queryClient = new QueryClient();
  queryClient.setQueryData(batchKeys.detail(id), batch);
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <BatchDetail key={id} batchId={id} />
    </HydrationBoundary>
  );
}
