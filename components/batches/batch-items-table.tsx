'use client';

import dynamic from 'next/dynamic';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Fragment, useId, useState } from 'react';
import { DisclosureButton } from '@/components/runs/disclosure-button';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Select } from '@/components/ui/input';
import { LoadError } from '@/components/ui/load-error';
import { Badge, EmptyState, Spinner } from '@/components/ui/misc';
import { BATCH_ITEM_STATUSES, type BatchItemView, type BatchView } from '@/lib/types/batch';
import { ITEM_STATUS } from './batch-status';
import { ITEMS_PAGE_SIZE, batchItemsQuery, type ItemFilter } from './queries';

// The steps view (events, totals, setup) loads when an item is first opened, as under a conversation turn.
const RunDetails = dynamic(() => import('@/components/runs/run-details').then((m) => m.RunDetails), { ssr: false });
// So does a waiting item's answer control (the approval prompt and its forms): most batches never need it.
const ItemAnswer = dynamic(() => import('./item-answer').then((m) => m.ItemAnswer), { ssr: false });

/** How much of an item's input and result the row shows (the opened row shows them whole). */
const SUMMARY_CHARS = 60;
const cut = (text: string, chars = SUMMARY_CHARS) => {
  const all = [...text];
  return all.length > chars ? `${all.slice(0, chars).join('')}…` : text;
};

/** The row's one-line input: the first columns' values. */
const inputSummary = (item: BatchItemView, columns: readonly string[]) =>
  cut(
    columns
      .map((c) => item.input[c] ?? '')
      .filter(Boolean)
      .join(' · '),
  );

/**
 * The batch's items, a page at a time (keyset pages: Next follows the server's cursor, Previous goes back along the
 * ones already followed), filtered by status. Each row opens to the item's whole input, result or error, and the
 * steps of its run — the same steps view as a conversation turn. Every value is untrusted text, shown as text.
 */
export function BatchItemsTable({ batch }: { batch: BatchView }) {
  const headingId = useId();
  const [filter, setFilter] = useState<ItemFilter>('all');
  // The cursors followed so far: the last one is the page on screen (null: the first page).
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors.at(-1) ?? null;
  const query = useQuery({ ...batchItemsQuery(batch.id, filter, cursor), placeholderData: keepPreviousData });
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const page = cursors.length;

  const toggle = (id: string) => setOpen((s) => (s.has(id) ? new Set([...s].filter((x) => x !== id)) : new Set(s).add(id)));

  return (
    <section aria-labelledby={headingId} className="space-y-3">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <h2 id={headingId} className="text-lg font-semibold text-zinc-900 dark:text-zinc-50">
          Items
        </h2>
        <Field label="Show" labelPlacement="beside">
          <Select
            value={filter}
            onChange={(e) => {
              setFilter(e.target.value as ItemFilter);
              setCursors([null]);
            }}
            className="h-9 w-auto px-2"
          >
            <option value="all">All items ({batch.total.toLocaleString('en-US')})</option>
            {BATCH_ITEM_STATUSES.map((s) => (
              <option key={s} value={s}>
                {ITEM_STATUS[s].label} ({batch.counts[s].toLocaleString('en-US')})
              </option>
            ))}
          </Select>
        </Field>
      </div>

      {query.isPending ? (
        <Spinner label="Loading items…" />
      ) : query.isError && !query.data ? (
        <LoadError query={query}>Couldn’t load the items.</LoadError>
      ) : query.data.items.length === 0 ? (
        <EmptyState title={filter === 'all' ? 'No items' : `No ${ITEM_STATUS[filter].label.toLowerCase()} items`}>
          {filter === 'all' ? null : 'Choose another status above to see the others.'}
        </EmptyState>
      ) : (
        <>
          {query.isError ? <LoadError query={query}>Couldn’t refresh the items.</LoadError> : null}
          <div role="region" aria-label="Items table" tabIndex={0} className="max-w-full overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
            <table className="w-full text-left text-sm" aria-busy={query.isFetching}>
              <thead className="bg-zinc-50 text-xs text-zinc-600 dark:bg-zinc-800/60 dark:text-zinc-300">
                <tr>
                  <th scope="col" className="px-3 py-2 font-medium">
                    #
                  </th>
                  <th scope="col" className="px-3 py-2 font-medium">
                    Input
                  </th>
                  <th scope="col" className="px-3 py-2 font-medium">
                    Status
                  </th>
                  <th scope="col" className="hidden px-3 py-2 font-medium sm:table-cell">
                    Result
                  </th>
                  <th scope="col" className="px-3 py-2 font-medium">
                    <span className="sr-only">Details</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {query.data.items.map((item) => (
                  <ItemRows key={item.id} batchId={batch.id} item={item} columns={batch.columns} open={open.has(item.id)} onToggle={() => toggle(item.id)} />
                ))}
              </tbody>
            </table>
          </div>
          <nav aria-label="Item pages" className="flex flex-wrap items-center gap-2">
            <Button variant="secondary" size="sm" aria-disabled={page === 1 || undefined} onClick={() => page > 1 && setCursors((c) => c.slice(0, -1))}>
              Previous
            </Button>
            <span className="text-sm text-zinc-600 dark:text-zinc-400">Page {page}</span>
            <Button
              variant="secondary"
              size="sm"
              aria-disabled={!query.data.nextCursor || query.isPlaceholderData || undefined}
              onClick={() => {
                const next = query.data.nextCursor;
                if (next && !query.isPlaceholderData) setCursors((c) => [...c, next]);
              }}
            >
              Next
            </Button>
            <span className="sr-only">{ITEMS_PAGE_SIZE} items per page</span>
          </nav>
        </>
      )}
    </section>
  );
}

function ItemRows({ batchId, item, columns, open, onToggle }: { batchId: string; item: BatchItemView; columns: readonly string[]; open: boolean; onToggle: () => void }) {
  const panelId = useId();
  const status = ITEM_STATUS[item.status];
  const label = `item ${item.index + 1}`;
  return (
    <Fragment>
      <tr className="border-t border-zinc-200 align-top dark:border-zinc-800">
        <td className="px-3 py-2 text-zinc-500 tabular-nums dark:text-zinc-400">{item.index + 1}</td>
        <td className="max-w-[12rem] px-3 py-2 break-words text-zinc-800 sm:max-w-xs dark:text-zinc-200">{inputSummary(item, columns)}</td>
        <td className="px-3 py-2">
          <Badge tone={status.tone}>{status.label}</Badge>
          {item.attempts > 1 ? <span className="ml-1 text-xs text-zinc-500 dark:text-zinc-400">try {item.attempts}</span> : null}
        </td>
        <td className="hidden max-w-xs px-3 py-2 break-words text-zinc-700 sm:table-cell dark:text-zinc-300">
          {item.error ? <span className="text-red-700 dark:text-red-300">{cut(item.error)}</span> : item.result ? cut(item.result) : null}
        </td>
        <td className="px-3 py-2 whitespace-nowrap">
          <DisclosureButton open={open} controls={panelId} onToggle={onToggle}>
            Details<span className="sr-only"> of {label}</span>
          </DisclosureButton>
        </td>
      </tr>
      <tr id={panelId} hidden={!open} className="bg-zinc-50/60 dark:bg-zinc-900/60">
        <td colSpan={5} className="px-3 pb-3">
          {open ? <ItemDetails batchId={batchId} item={item} columns={columns} label={label} /> : null}
        </td>
      </tr>
    </Fragment>
  );
}

function ItemDetails({ batchId, item, columns, label }: { batchId: string; item: BatchItemView; columns: readonly string[]; label: string }) {
  return (
    <div className="min-w-0 space-y-3 pt-2">
      {item.status === 'waiting' && item.waiting ? <ItemAnswer batchId={batchId} item={item} waiting={item.waiting} label={`Item ${item.index + 1}`} /> : null}
      <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
        {columns.map((c) => (
          <Fragment key={c}>
            <dt className="font-mono text-xs text-zinc-500 dark:text-zinc-400">{c}</dt>
            <dd className="break-words whitespace-pre-wrap text-zinc-800 dark:text-zinc-200">{item.input[c]}</dd>
          </Fragment>
        ))}
      </dl>
      {item.error ? (
        <div>
          <h4 className="text-xs font-semibold text-zinc-800 dark:text-zinc-200">Error</h4>
          <p className="text-sm break-words whitespace-pre-wrap text-red-700 dark:text-red-300">{item.error}</p>
        </div>
      ) : null}
      {item.result !== null ? (
        <div>
          <h4 className="text-xs font-semibold text-zinc-800 dark:text-zinc-200">Result</h4>
          <p className="text-sm break-words whitespace-pre-wrap text-zinc-800 dark:text-zinc-200">{item.result}</p>
          {item.truncated ? <p className="text-xs text-zinc-500 dark:text-zinc-400">Cut to its stored length; the run’s steps hold the whole answer.</p> : null}
        </div>
      ) : null}
      {item.runId ? (
        <div className="rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900">
          <RunDetails runId={item.runId} heading={`Steps of ${label}`} />
        </div>
      ) : (
        <p className="text-xs text-zinc-500 dark:text-zinc-400">No run yet: the item has not started.</p>
      )}
    </div>
  );
}
