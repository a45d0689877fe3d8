'use client';

import dynamic from 'next/dynamic';

/** The inbox stream's component, loaded once the page has hydrated (like the teams' lazy dialogs). */
export const InboxLiveUpdates = dynamic(() => import('./inbox-live-updates').then((m) => m.InboxLiveUpdates), { ssr: false });
