'use client';

import { useCallback, useEffect, useRef, useSyncExternalStore } from 'react';
import type { ApiJob, ApiMember, JobStatus } from '@/lib/types/team';

/**
 * Optional browser notifications for a team's workspace: when a job starts waiting for the person's answer, or a
 * request finishes, while the tab is hidden. Permission is asked only from the person's click (enable), never on
 * load; the choice is kept per browser. Texts are plain notification text (never HTML).
 */

export type NotificationSupport = 'unsupported' | NotificationPermission;
export type Notice = { tag: string; title: string; body: string };
/** What the workspace last saw of its jobs: each request's status and the newest seq. */
export type SeenJobs = { statuses: ReadonlyMap<string, JobStatus>; maxSeq: number };

const STORAGE_KEY = 'ensemble.team-notifications';
const FINISHED: readonly JobStatus[] = ['completed', 'failed'];

export function seenJobs(jobs: readonly ApiJob[]): SeenJobs {
  const statuses = new Map<string, JobStatus>();
  let maxSeq = 0;
  for (const job of jobs) {
    if (job.kind === 'request') statuses.set(job.id, job.status);
    maxSeq = Math.max(maxSeq, job.seq);
  }
  return { statuses, maxSeq };
}

/**
 * The notices a change of the feed calls for. A request notices when it moves into waiting for input, or into
 * completed/failed; a request not seen before counts only if it is newer than everything seen (an older page loaded
 * by scrolling back is history, not news). Nothing before a first view (`before` null). Receipts are the members'
 * own bookkeeping: no notice.
 */
export function noticesFor(before: SeenJobs | null, jobs: readonly ApiJob[], members: ReadonlyMap<string, ApiMember>, teamName: string): Notice[] {
  if (!before) return [];
  const notices: Notice[] = [];
  for (const job of jobs) {
    if (job.kind !== 'request') continue;
    const was = before.statuses.get(job.id);
    if (was === undefined && job.seq <= before.maxSeq) continue;
    if (was === job.status) continue;
    const who = (job.memberId && members.get(job.memberId)?.name) || 'A member';
    if (job.status === 'waiting_input') {
      notices.push({ tag: `${job.id}:waiting`, title: teamName, body: `${who} needs your answer` });
    } else if (FINISHED.includes(job.status) && (was === undefined || !FINISHED.includes(was))) {
      notices.push({ tag: `${job.id}:${job.status}`, title: teamName, body: job.status === 'completed' ? `${who} finished a request` : `${who}’s request failed` });
    }
  }
  return notices;
}

function support(): NotificationSupport {
  return typeof window !== 'undefined' && 'Notification' in window ? Notification.permission : 'unsupported';
}

// Where storage is blocked, the choice lasts for this page only.
let pagePreference = false;

function readPreference(): boolean {
  try {
    return window.localStorage.getItem(STORAGE_KEY) === 'on';
  } catch {
    return pagePreference;
  }
}

function writePreference(on: boolean): void {
  pagePreference = on;
  try {
    window.localStorage.setItem(STORAGE_KEY, on ? 'on' : 'off');
  } catch {
    // storage blocked: pagePreference holds it
  }
}

// The permission and the stored choice as an external store: read after hydration (the server knows neither).
const listeners = new Set<() => void>();
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => void listeners.delete(listener);
};
const changed = () => listeners.forEach((listener) => listener());
const snapshot = () => `${support()}|${readPreference() ? 'on' : 'off'}`;
const serverSnapshot = () => 'unsupported|off';

export type TeamNotifications = {
  support: NotificationSupport;
  /** On: the person asked for them and the browser allows them. */
  enabled: boolean;
  /** From a click only: asks the browser's permission if it was never given, then turns notices on. */
  enable: () => Promise<void>;
  disable: () => void;
};

/** Watches the feed's jobs and shows the notices they call for while the tab is hidden and notices are on. */
export function useTeamNotifications(jobs: readonly ApiJob[], members: ReadonlyMap<string, ApiMember>, teamName: string): TeamNotifications {
  const [permission, preference] = useSyncExternalStore(subscribe, snapshot, serverSnapshot).split('|') as [NotificationSupport, 'on' | 'off'];
  const seen = useRef<SeenJobs | null>(null);
  const enabled = preference === 'on' && permission === 'granted';

  useEffect(() => {
    const notices = noticesFor(seen.current, jobs, members, teamName);
    seen.current = seenJobs(jobs);
    if (!enabled || document.visibilityState !== 'hidden') return;
    for (const notice of notices) {
      const shown = new Notification(notice.title, { body: notice.body, tag: notice.tag });
      shown.onclick = () => window.focus();
    }
  }, [jobs, members, teamName, enabled]);

  const enable = useCallback(async () => {
    if (!('Notification' in window)) return;
    const answer = Notification.permission === 'default' ? await Notification.requestPermission() : Notification.permission;
    if (answer === 'granted') writePreference(true);
    changed();
  }, []);
  const disable = useCallback(() => {
    writePreference(false);
    changed();
  }, []);

  return { support: permission, enabled, enable, disable };
}
