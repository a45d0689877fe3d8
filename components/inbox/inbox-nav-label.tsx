'use client';

import { useQuery } from '@tanstack/react-query';
import { InboxLiveUpdates } from './inbox-live-updates-lazy';
import { inboxCountQuery } from './queries';

/** "Inbox, 3 waiting" as the link's name: the badge is seen, the words are heard (one name, not "Inbox 3"). */
export const inboxLinkName = (count: number | undefined) => (count ? `Inbox, ${count} waiting` : 'Inbox');

/** The phone menu's button names what waits too: closed, the Inbox link and its badge are out of sight. */
export const menuButtonName = (open: boolean, count: number | undefined) =>
  open ? 'Close menu' : count ? `Open menu, ${count} waiting in the Inbox` : 'Open menu';

/** How many things wait for the person: the nav's live count (the row nav holds its stream), shared by the cache. */
export function useInboxCount(): number | undefined {
  return useQuery(inboxCountQuery()).data;
}

/** The count as a badge: "99+" past 99. */
export const badgeText = (count: number) => (count > 99 ? '99+' : String(count));

/**
 * The Inbox link's text with its live count; with `follow` (the header's row nav, always mounted) it also holds the
 * tab's one inbox stream, loaded lazily; the phone menu's copy shares the count through the query cache.
 */
export function InboxNavLabel({ follow }: { follow: boolean }) {
  const count = useInboxCount();
  return (
    <>
      {follow ? <InboxLiveUpdates /> : null}
      <span aria-hidden={count ? true : undefined}>Inbox</span>
      {count ? (
        <>
          <span aria-hidden className="ml-1.5 rounded-full bg-amber-500 px-1.5 py-0.5 text-xs font-semibold text-white tabular-nums">
            {badgeText(count)}
          </span>
          <span className="sr-only">{inboxLinkName(count)}</span>
        </>
      ) : null}
    </>
  );
}
