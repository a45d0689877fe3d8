/**
 * The activity feed's filter (issue #12 "Find and keep"): one member, one status group and a piece of text. The same
 * three names (`member`, `status`, `text`) are the page URL's search params and the activity API's query params, so
 * a filtered view is a link. Parsing here is lenient (a stale or hand-edited URL shows the closest valid filter);
 * the API validates strictly (lib/schemas/team.ts).
 */
import type { JobStatus } from './types/team';

/** What the status menu offers: the feed's badges, with everything still moving grouped as "in progress". */
export const FEED_STATUS_GROUPS = {
  needs_input: ['waiting_input'],
  in_progress: ['queued', 'running', 'resuming', 'cancelling'],
  completed: ['completed'],
  failed: ['failed'],
  cancelled: ['cancelled'],
} as const satisfies Record<string, readonly JobStatus[]>;
export type FeedStatusGroup = keyof typeof FEED_STATUS_GROUPS;
export const FEED_STATUS_VALUES = Object.keys(FEED_STATUS_GROUPS) as FeedStatusGroup[];

export const FEED_STATUS_LABELS: Record<FeedStatusGroup, string> = {
  needs_input: 'Needs input',
  in_progress: 'In progress',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** Search text bound: long enough for a sentence, short enough to stay a search (code points / UTF-8 bytes). */
export const FEED_FILTER_TEXT = { maxChars: 200, maxBytes: 800 } as const;

export type FeedFilter = {
  /** A team member id: jobs sent to that member or by it (its results coming back included). */
  member: string | null;
  status: FeedStatusGroup | null;
  /** Matched inside the request text, result and error; ASCII letters ignore case (SQLite lower()). */
  text: string;
};

export const NO_FEED_FILTER: FeedFilter = Object.freeze({ member: null, status: null, text: '' });

export const isFeedStatusGroup = (v: unknown): v is FeedStatusGroup => typeof v === 'string' && Object.hasOwn(FEED_STATUS_GROUPS, v);

export const isFiltered = (f: FeedFilter) => f.member !== null || f.status !== null || f.text !== '';

/** Folds ASCII letters only, exactly as SQLite's built-in lower() does, so browser and database agree. */
export const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));

type Params = { get(name: string): string | null };

/** The filter a URL names; unknown statuses and over-long text are dropped or cut rather than refused. */
export function feedFilterFromParams(params: Params): FeedFilter {
  const member = params.get('member')?.trim() || null;
  const status = params.get('status');
  const text = [...(params.get('text') ?? '').trim()].slice(0, FEED_FILTER_TEXT.maxChars).join('');
  return { member: member && member.length <= 100 ? member : null, status: isFeedStatusGroup(status) ? status : null, text };
}

/** The filter as search params (empty fields left out), merged into `base` so unrelated params survive. */
export function feedFilterParams(filter: FeedFilter, base?: Params & { toString(): string }): URLSearchParams {
  const out = new URLSearchParams(base?.toString() ?? '');
  for (const name of ['member', 'status', 'text'] as const) out.delete(name);
  if (filter.member) out.set('member', filter.member);
  if (filter.status) out.set('status', filter.status);
  if (filter.text) out.set('text', filter.text);
  return out;
}

/** A stable, plain value for query keys (equal filters give equal keys). */
export const feedFilterKey = (f: FeedFilter) => ({ member: f.member, status: f.status, text: f.text });
