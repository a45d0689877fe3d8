'use client';

import dynamic from 'next/dynamic';

/**
 * The state entry dialog, loaded when the person first adds or edits an entry: the form, the conflict view and
 * their checks need not ship with the workspace's first load (docs/performance.md "First-load JavaScript").
 */
export const StateEntryDialog = dynamic(() => import('./state-entry-dialog').then((m) => m.StateEntryDialog), { ssr: false });
