'use client';

import Link from 'next/link';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Button } from '@/components/ui/button';
import { LoadError } from '@/components/ui/load-error';
import { Badge, Card, EmptyState, Spinner } from '@/components/ui/misc';
import { Time } from '@/components/ui/time';
import { ButtonLink } from '@/components/ui/button-link';
import type { BatchView } from '@/lib/types/batch';
import { BATCH_STATUS } from './batch-status';
import { countsSentence } from './progress';
import { batchListQuery } from './queries';

/**
 * The person's batches, newest first: each with its target, status and counts in words, linking to its page. Read
 * when shown (each batch's page follows its own progress live); a page at a time.
 */
export function BatchList() {
  const query = useInfiniteQuery(batchListQuery());
  const batches = (query.data?.pages ?? []).flatMap((p) => p.batches);

  if (query.isPending) return <Spinner label="Loading your batches…" />;
  if (query.isError && !query.data) return <LoadError query={query}>Couldn’t load your batches.</LoadError>;
  if (batches.length === 0) {
    return (
      <EmptyState title="No batches yet">
        <p>Run one prompt over every row of a CSV or JSONL list, with one of your agents or a team member.</p>
        <ButtonLink href="/batches/new" variant="secondary" className="mt-3">
          Run over a list
        </ButtonLink>
      </EmptyState>
    );
  }
  return (
    <div className="space-y-3">
      {query.isError ? <LoadError query={query}>Couldn’t refresh your batches.</LoadError> : null}
      <ul aria-label="Batches" className="space-y-3">
        {batches.map((batch) => (
          <li key={batch.id}>
            <BatchListItem batch={batch} />
          </li>
        ))}
      </ul>
      {query.hasNextPage ? (
        <Button variant="secondary" onClick={() => void query.fetchNextPage()} pending={query.isFetchingNextPage}>
          {query.isFetchingNextPage ? 'Loading…' : 'Show more'}
        </Button>
      ) : null}
    </div>
  );
}

function BatchListItem({ batch }: { batch: BatchView }) {
  const status = BATCH_STATUS[batch.status];
  return (
    <Card className="flex min-w-0 flex-col gap-2 sm:flex-row sm:items-start sm:justify-between">
      <div className="min-w-0 space-y-1">
        <Link
          href={`/batches/${encodeURIComponent(batch.id)}`}
          className="font-semibold wrap-anywhere text-zinc-900 underline-offset-2 hover:underline dark:text-zinc-50"
        >
          {batch.total.toLocaleString('en-US')} {batch.total === 1 ? 'item' : 'items'} with {batch.target.name}
        </Link>
        <p className="line-clamp-2 text-sm break-words text-zinc-600 dark:text-zinc-400">{batch.template}</p>
        <p className="text-xs text-zinc-500 dark:text-zinc-400">
          {countsSentence(batch.counts)} · <Time iso={batch.createdAt} format="when" />
        </p>
      </div>
      <Badge tone={status.tone} className="self-start">
        {status.label}
      </Badge>
    </Card>
  );
}
