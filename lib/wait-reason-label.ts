import type { ApiWaitReason } from './types/team';

/** How a queued job's wait reads on its card: the scheduler's reason in the person's words. */
export function waitReasonLabel(reason: ApiWaitReason): string {
  switch (reason.kind) {
    case 'slot':
      return `Waiting for a free slot (${reason.ahead === 0 ? 'next in line' : `${reason.ahead} ahead of it`})`;
    case 'behind':
      return 'Behind an earlier request to this member';
    case 'your_answer':
      return 'Waiting for your answer to an earlier request to this member';
    case 'member_busy':
      return 'Waiting for the member’s own conversation to finish its current run';
    case 'team_budget':
      return 'Team budget reached — raise it to let this run';
    case 'daily_cap':
      return 'Daily token cap reached — waits until midnight UTC';
    case 'team_not_ready':
      return 'Team not ready — reconnect it from the Manage menu';
    case 'provider':
      return 'Waiting for the model provider — its limit on calls at once or per minute is reached';
  }
}
