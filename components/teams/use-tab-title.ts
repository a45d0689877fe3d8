'use client';

import { useEffect } from 'react';
import { teamTitle } from './tab-title';

/** The app's title template (app/layout.tsx `%s · Ensemble`), so the workspace's title reads like every page's. */
const SUFFIX = ' · Ensemble';

/**
 * The tab title of a team's workspace: "(2) Release · Ensemble" while 2 of its jobs wait for the person's input,
 * "Release · Ensemble" when none do, so a glance at the tab says whether the team needs its person.
 */
export function tabTitle(teamName: string, needsInput: number): string {
  return `${teamTitle(teamName, needsInput)}${SUFFIX}`;
}

/**
 * Keep document.title at `title` while the component is mounted (null: leave it, e.g. before the team loads). On
 * unmount the previous title comes back only if the title is still ours: the next page may already have set its
 * own (route metadata), which must win.
 */
export function useTabTitle(title: string | null): void {
  useEffect(() => {
    if (title === null) return;
    const previous = document.title;
    document.title = title;
    return () => {
      if (document.title === title) document.title = previous;
    };
  }, [title]);
}
