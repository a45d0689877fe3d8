'use client';

import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Menu } from '@/components/ui/menu';
import { ApiError } from '@/lib/api-client';
import { newClientId } from '@/lib/idempotency/client-id';
import { forgetKeyAfterSuccess, keyForDraft, type KeyedDraft } from '@/lib/idempotency/draft-key';
import type { ApiJob, ApiMember } from '@/lib/types/team';

export type RetryTarget = { jobId: string; memberId?: string; requestId: string };

type Props = {
  job: ApiJob;
  members: ReadonlyMap<string, ApiMember>;
  onRetry: (target: RetryTarget) => Promise<void>;
};

/**
 * Who "Send to…" offers: every member with a conversation but the one the request went to and the one that sent it
 * (a member's request can't be sent back to its sender: the server refuses it).
 */
export const sendToTargets = (job: Pick<ApiJob, 'memberId' | 'sourceMemberId'>, members: ReadonlyMap<string, ApiMember>) =>
  [...members.values()].filter((m) => m.id !== job.memberId && m.id !== job.sourceMemberId && m.conversationId);

/**
 * Retry a failed or cancelled request with the same member, or send it to another one. Each choice keeps its
 * request id until it succeeds, so pressing again after a lost answer is the same retry on the server, never a
 * second request; after a success a new press is a new retry.
 */
export function JobRetryControls({ job, members, onRetry }: Props) {
  const [state, setState] = useState<{ pending: boolean; error: string | null }>({ pending: false, error: null });
  const [keyed, setKeyed] = useState<KeyedDraft | null>(null);
  const others = sendToTargets(job, members);

  const retry = async (memberId?: string) => {
    if (state.pending) return;
    const current = keyForDraft(keyed, memberId ?? '', newClientId);
    setKeyed(current);
    setState({ pending: true, error: null });
    try {
      await onRetry({ jobId: job.id, memberId, requestId: current.key });
      setKeyed((k) => forgetKeyAfterSuccess(k, current.key));
      setState({ pending: false, error: null });
    } catch (e) {
      setState({ pending: false, error: e instanceof ApiError ? e.message : 'Retry failed; try again.' });
    }
  };

  return (
    <div className="mt-2 space-y-1">
      <div className="flex flex-wrap items-center gap-2">
        <Button variant="secondary" size="sm" onClick={() => void retry()} pending={state.pending}>
          {state.pending ? 'Sending…' : 'Retry'}
        </Button>
        {others.length ? (
          <Menu
            label={
              <>
                Send to… <span aria-hidden>▾</span>
              </>
            }
            button={{ variant: 'secondary', size: 'sm' }}
            items={others.map((m) => ({ label: `@${m.name}`, onSelect: () => void retry(m.id) }))}
          />
        ) : null}
      </div>
      {state.error ? (
        <p role="alert" className="text-sm text-red-600 dark:text-red-400">
          {state.error}
        </p>
      ) : null}
    </div>
  );
}
