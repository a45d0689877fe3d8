'use client';

import { useQuery } from '@tanstack/react-query';
import { InboxLiveUpdates } from './inbox-live-updates-lazy';
import { inboxCountQuery } from './queries';

/** "Inbox, 3 waiting" as the link's name: the badge is seen, the words are heard (one name, not "Inbox 3"). */
export const inboxLinkName = (count: number | undefined) => (count ? `Inbox, ${count} waiting` : 'Inbox');

/**
 * The Inbox link's text with its live count; with `follow` (the header's row nav, always mounted) it also holds the
 * tab's one inbox stream, loaded lazily; the phone menu's copy shares the count through the query cache.
 */
export function InboxNavLabel({ follow }: { follow: boolean }) {
  const count = useQuery(inboxCountQuery()).data;
  return (
    <>
      {follow ? <InboxLiveUpdates /> : null}
      <span aria-hidden={count ? true : undefined}>Inbox</span>
      {count ? (
        <>
          <span aria-hidden className="ml-1.5 rounded-full bg-amber-500 px-1.5 py-0.5 text-xs font-semibold text-white tabular-nums">
            {count > 99 ? '99+' : count}
          </span>
          <span className="sr-only">{inboxLinkName(count)}</span>
        </>
      ) : null}
    </>
  );
}
