'use client';

import { format } from 'date-fns';
import { useSyncExternalStore } from 'react';

const noSubscription = () => () => {};

/**
 * A date in the reader's time zone. The server renders the same markup in UTC (it can't know the zone), and the
 * browser switches to local time after hydrating, so the two renders never disagree.
 */
export function LocalTime({ iso, withTime = false }: { iso: string; withTime?: boolean }) {
  // false while the server renders and while hydrating, true from then on.
  const local = useSyncExternalStore(noSubscription, () => true, () => false);
  const date = new Date(iso);
  const text = local ? format(date, withTime ? 'PP p' : 'PP') : `${iso.slice(0, withTime ? 16 : 10).replace('T', ' ')}${withTime ? ' UTC' : ''}`;
  return (
    <time dateTime={iso} title={local ? format(date, 'PPpp') : iso}>
      {text}
    </time>
  );
}
