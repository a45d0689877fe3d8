'use client';

import { useInboxEvents } from './use-inbox-events';

/** Holds the tab's inbox stream open (nothing to render); loaded after the page, so no page's first load carries push code for it. */
export function InboxLiveUpdates() {
  useInboxEvents();
  return null;
}
