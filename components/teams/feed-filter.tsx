'use client';

import { useEffect, useId, useMemo, useState } from 'react';
import { usePathname, useSearchParams } from 'next/navigation';
import { Button } from '@/components/ui/button';
import { Input, Select } from '@/components/ui/input';
import {
  FEED_FILTER_TEXT,
  FEED_STATUS_LABELS,
  FEED_STATUS_VALUES,
  feedFilterFromParams,
  feedFilterParams,
  isFeedStatusGroup,
  isFiltered,
  type FeedFilter,
} from '@/lib/feed-filter';
import type { ApiMember } from '@/lib/types/team';
import { useDebouncedValue } from '@/components/ui/use-debounced-value';

/** Typing settles this long before the URL (and the feed) follows. */
const TEXT_SETTLE_MS = 300;

const labelClass = 'block text-xs font-medium text-zinc-700 dark:text-zinc-300';

/** The feed filter the page URL names (`?member=…&status=…&text=…`); the URL is its only store. */
export function useFeedFilter(): FeedFilter {
  // Typed nullable because the app also has Pages Router pages (ADR 062); never null in the App Router, where this runs.
  const query = useSearchParams()?.toString() ?? '';
  return useMemo(() => feedFilterFromParams(new URLSearchParams(query)), [query]);
}

/**
 * A new history entry for each filter change, made with the native pushState, which Next's router follows
 * (useSearchParams updates) without a server round trip; the back button restores the previous filter.
 */
function pushFilter(pathname: string, next: FeedFilter) {
  const params = feedFilterParams(next, new URLSearchParams(window.location.search));
  const query = params.toString();
  if (`?${query}` === window.location.search || (query === '' && window.location.search === '')) return;
  window.history.pushState(null, '', query ? `${pathname}?${query}` : pathname);
}

type Props = {
  filter: FeedFilter;
  members: readonly ApiMember[];
  /** How many jobs match (shown while a filter is on). */
  matching: number | null;
};

/** Member, status and text filter above the feed; every change is a URL change. */
export function FeedFilterBar({ filter, members, matching }: Props) {
  const pathname = usePathname() ?? ''; // null only under the Pages Router (see useFeedFilter)
  const id = useId();
  const [text, setText] = useState(filter.text);
  const settled = useDebouncedValue(text, TEXT_SETTLE_MS);

  // The URL moved on its own (back button, a link): show its text, unless it is what is being typed. Adjusted
  // while rendering (React's pattern for state derived from a changed prop), not in an effect.
  const [urlText, setUrlText] = useState(filter.text);
  if (urlText !== filter.text) {
    setUrlText(filter.text);
    if (text.trim() !== filter.text) setText(filter.text);
  }

  useEffect(() => {
    const next = [...settled.trim()].slice(0, FEED_FILTER_TEXT.maxChars).join('');
    if (next !== filter.text) pushFilter(pathname, { ...filter, text: next });
    // Only a settled edit pushes; a URL change alone must not push it back.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [settled]);

  const knownMember = filter.member === null || members.some((m) => m.id === filter.member);

  return (
    <form
      role="search"
      aria-label="Filter activity"
      className="flex flex-col gap-2 sm:flex-row sm:flex-wrap sm:items-end"
      onSubmit={(e) => {
        e.preventDefault();
        pushFilter(pathname, { ...filter, text: [...text.trim()].slice(0, FEED_FILTER_TEXT.maxChars).join('') });
      }}
    >
      <div className="min-w-0 sm:w-44">
        <label htmlFor={`${id}-member`} className={labelClass}>
          Member
        </label>
        <Select
          id={`${id}-member`}
          value={filter.member ?? ''}
          onChange={(e) => pushFilter(pathname, { ...filter, member: e.target.value || null })}
        >
          <option value="">All members</option>
          {members.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name}
            </option>
          ))}
          {!knownMember ? <option value={filter.member!}>A former member</option> : null}
        </Select>
      </div>
      <div className="min-w-0 sm:w-40">
        <label htmlFor={`${id}-status`} className={labelClass}>
          Status
        </label>
        <Select
          id={`${id}-status`}
          value={filter.status ?? ''}
          onChange={(e) => pushFilter(pathname, { ...filter, status: isFeedStatusGroup(e.target.value) ? e.target.value : null })}
        >
          <option value="">Any status</option>
          {FEED_STATUS_VALUES.map((s) => (
            <option key={s} value={s}>
              {FEED_STATUS_LABELS[s]}
            </option>
          ))}
        </Select>
      </div>
      <div className="min-w-0 flex-1 sm:min-w-48">
        <label htmlFor={`${id}-text`} className={labelClass}>
          Search activity
        </label>
        <Input
          id={`${id}-text`}
          type="search"
          value={text}
          placeholder="Words in requests and results"
          onChange={(e) => setText(e.target.value)}
        />
      </div>
      {isFiltered(filter) ? (
        <div className="flex items-center gap-3">
          <Button
            type="button"
            variant="secondary"
            onClick={() => {
              setText('');
              pushFilter(pathname, { member: null, status: null, text: '' });
            }}
          >
            Clear filters
          </Button>
          {matching !== null ? (
            <p role="status" className="text-xs text-zinc-600 dark:text-zinc-400">
              {matching === 1 ? '1 match' : `${matching.toLocaleString('en-US')} matches`}
            </p>
          ) : null}
        </div>
      ) : null}
    </form>
  );
}
