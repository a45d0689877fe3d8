'use client';

import dynamic from 'next/dynamic';

/**
 * The edit-team and clone dialogs, loaded when someone opens one (like team-budget-dialog-lazy.tsx), so the
 * workspace's first load does not ship them to every visitor.
 */
export const TeamSettingsDialog = dynamic(() => import('./team-settings-dialog').then((m) => m.TeamSettingsDialog), { ssr: false });
export const CloneTeamDialog = dynamic(() => import('./clone-team-dialog').then((m) => m.CloneTeamDialog), { ssr: false });
