'use client';

import Link from 'next/link';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { LiveStatus } from '@/components/ui/live-status';
import { LoadError } from '@/components/ui/load-error';
import { Badge, Card, PageHeader, Spinner } from '@/components/ui/misc';
import { Time } from '@/components/ui/time';
import { isBatchFinished, type BatchView } from '@/lib/types/batch';
import { BatchActions } from './batch-actions';
import { BatchItemsTable } from './batch-items-table';
import { BatchProgress } from './batch-progress';
import { BATCH_STATUS } from './batch-status';
import { batchDetailQuery, batchKeys } from './queries';
import { useBatchEvents } from './use-batch-events';

/** Where the batch's target lives: the agent's edit page, or the member's team. */
const targetHref = (batch: BatchView) =>
  batch.target.kind === 'agent' ? `/agents/${encodeURIComponent(batch.target.agentId)}/edit` : `/teams/${encodeURIComponent(batch.target.teamId)}`;

/**
 * One batch's page: what it runs (the target, the template), its progress pushed live, its actions and its items.
 * The page renders with the batch read on the server (owner-checked, 404 otherwise); from then on the push stream
 * keeps it current until the batch ends.
 */
export function BatchDetail({ batchId }: { batchId: string }) {
  const queryClient = useQueryClient();
  const query = useQuery(batchDetailQuery(batchId));
  const batch = query.data;
  // While the stream is down, the hook's own timer re-reads the batch and its items (onPoll), so no query polls.
  const live = useBatchEvents(batchId, batch ? !isBatchFinished(batch.status) : false);

  if (query.isPending) return <Spinner label="Loading the batch…" />;
  if (query.isError && !batch) return <LoadError query={query}>Couldn’t load this batch.</LoadError>;
  if (!batch) return null;
  const status = BATCH_STATUS[batch.status];

  return (
    <div className="space-y-6">
      <PageHeader title={<>Batch with {batch.target.name}</>}>
        <Badge tone={status.tone} className="self-center">
          {status.label}
        </Badge>
      </PageHeader>
      <Card className="space-y-4">
        <div className="flex flex-wrap items-center justify-between gap-2 text-sm text-zinc-600 dark:text-zinc-400">
          <p className="min-w-0 break-words">
            {batch.total.toLocaleString('en-US')} {batch.total === 1 ? 'item' : 'items'} with{' '}
            <Link href={targetHref(batch)} className="font-medium text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300">
              {batch.target.name}
            </Link>
            {batch.target.kind === 'member' ? ' (team member)' : ''}, {batch.concurrency} at once, up to {batch.maxAttempts}{' '}
            {batch.maxAttempts === 1 ? 'try' : 'tries'} each. {batch.origin === 'tool' ? 'Started by an agent' : 'Started'} <Time iso={batch.createdAt} format="when" />
            {batch.finishedAt ? (
              <>
                , ended <Time iso={batch.finishedAt} format="when" />
              </>
            ) : null}
            .
          </p>
          {!isBatchFinished(batch.status) ? <LiveStatus connection={live.connection} /> : null}
        </div>
        {query.isError ? <LoadError query={query}>Couldn’t refresh this batch.</LoadError> : null}
        <BatchProgress batch={batch} />
        <BatchActions batch={batch} onChanged={(next) => queryClient.setQueryData(batchKeys.detail(batchId), next)} />
        <details className="text-sm">
          <summary className="cursor-pointer font-medium text-zinc-700 dark:text-zinc-300">Prompt template</summary>
          <p className="mt-2 rounded-md bg-zinc-50 p-2 break-words whitespace-pre-wrap text-zinc-800 dark:bg-zinc-800/60 dark:text-zinc-100">{batch.template}</p>
        </details>
      </Card>
      <BatchItemsTable batch={batch} />
    </div>
  );
}
