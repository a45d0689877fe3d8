/**
 * The message just sent, shown until the server's history includes it. The checkpoint only gains the human
 * turn once the run starts, so without this the text would vanish for a moment after Send.
 */
import type { Message, Run } from './types';

export type PendingEcho = { text: string; runId: string; /** messages.length when the send succeeded */ baseCount: number };

export function visibleEcho(echo: PendingEcho | null, messages: readonly Message[], run: Run | null): PendingEcho | null {
  if (!echo) return null;
  // The history gained a user turn after the send: the real message is on screen now.
  if (messages.slice(echo.baseCount).some((m) => m.role === 'user')) return null;
  // A different run, or ours has finished: whatever the history says now is final.
  if (!run || run.id !== echo.runId || !(run.status === 'pending' || run.status === 'running')) return null;
  return echo;
}
