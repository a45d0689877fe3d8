'use client';

import { Button } from '@/components/ui/button';
import type { TeamNotifications } from './notifications';

/**
 * The workspace header's "Notify me" switch. Pressing it is what asks the browser's permission (never the page
 * load); when the browser refuses, it says where to change that instead of asking again.
 */
export function NotificationToggle({ notifications }: { notifications: TeamNotifications }) {
  const { support, enabled, enable, disable } = notifications;
  if (support === 'unsupported') return null;
  if (support === 'denied') {
    return <p className="text-xs text-zinc-600 dark:text-zinc-400">Notifications are blocked in this browser’s site settings</p>;
  }
  return (
    <Button
      variant={enabled ? 'secondary' : 'ghost'}
      size="sm"
      aria-pressed={enabled}
      title="Tell me when a member needs my answer or finishes a request while this tab is in the background"
      onClick={() => (enabled ? disable() : void enable())}
    >
      Notify me
    </Button>
  );
}
