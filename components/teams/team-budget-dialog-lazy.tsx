'use client';

import dynamic from 'next/dynamic';

/**
 * The team budget dialog, loaded when someone opens it: it carries zod, the form library and a dialog, which the
 * workspace's first load would otherwise ship to every visitor (docs/performance.md "First-load JavaScript").
 */
export const TeamBudgetDialog = dynamic(() => import('./team-budget-dialog').then((m) => m.TeamBudgetDialog), { ssr: false });
