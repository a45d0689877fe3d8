import { describe, expect, it } from 'vitest';
import { canRetry, linkedJobId } from '@/components/teams/feed';
import type { ApiJob, ApiWaitReason } from '@/lib/types/team';
import { waitReasonLabel } from '@/lib/wait-reason-label';

describe('the wait-reason line and the retry controls, as a person reads them', () => {
  it('words every reason the scheduler gives (the issue\'s own phrases)', () => {
    const cases: Array<[ApiWaitReason, string]> = [
      [{ kind: 'slot', ahead: 0 }, 'Waiting for a free slot (next in line)'],
      [{ kind: 'slot', ahead: 1 }, 'Waiting for a free slot (1 ahead of it)'],
      [{ kind: 'slot', ahead: 12 }, 'Waiting for a free slot (12 ahead of it)'],
      [{ kind: 'behind', jobId: 'j' }, 'Behind an earlier request to this member'],
      [{ kind: 'your_answer', jobId: 'j' }, 'Waiting for your answer to an earlier request to this member'],
      [{ kind: 'team_budget' }, 'Team budget reached — raise it to let this run'],
      [{ kind: 'daily_cap' }, 'Daily token cap reached — waits until midnight UTC'],
      [{ kind: 'team_not_ready' }, 'Team not ready — reconnect it from the Manage menu'],
      [{ kind: 'member_busy' }, 'Waiting for the member’s own conversation to finish its current run'],
    ];
    for (const [reason, text] of cases) expect(waitReasonLabel(reason)).toBe(text);
  });

  it('retry is offered on a failed or cancelled request only, never on a receipt or unfinished work', () => {
    for (const status of ['failed', 'cancelled'] as const) expect(canRetry({ kind: 'request', status })).toBe(true);
    for (const status of ['queued', 'running', 'waiting_input', 'resuming', 'cancelling', 'completed'] as const) {
      expect(canRetry({ kind: 'request', status })).toBe(false);
    }
    expect(canRetry({ kind: 'receipt', status: 'failed' })).toBe(false);
  });

  it('a retry links back to the request it retries; a handoff still to its parent', () => {
    const base = { kind: 'request', receipt: null, parentId: null, retryOf: null } as unknown as ApiJob;
    expect(linkedJobId({ ...base, id: 'r', retryOf: 'orig' }, [])).toBe('orig');
    expect(linkedJobId({ ...base, id: 'h', parentId: 'p' }, [])).toBe('p');
    expect(linkedJobId({ ...base, id: 'x' }, [])).toBeNull();
  });
});
