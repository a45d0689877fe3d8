'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { answerBatchItemAction } from '@/app/(app)/batches/actions';
import { JobAnswerForm, type AnswerBody } from '@/components/teams/job-answer-form';
import { actionData } from '@/lib/action-result';
import type { BatchItemView } from '@/lib/types/batch';
import type { ApiWaiting } from '@/lib/types/team';
import { batchKeys } from './queries';

/**
 * A waiting item's answer in place on the batch page: the team card's and the Inbox's control (Approve / Decline, a
 * text answer to a question). The item queues again and resumes in its turn; the page follows it by push.
 */
export function ItemAnswer({ batchId, item, waiting, label }: { batchId: string; item: BatchItemView; waiting: ApiWaiting; label: string }) {
  const queryClient = useQueryClient();
  const [note, setNote] = useState('');
  const submit = async (_: string, body: AnswerBody) => {
    await actionData(() => answerBatchItemAction(batchId, item.id, body));
    await Promise.all([queryClient.invalidateQueries({ queryKey: batchKeys.items(batchId) }), queryClient.invalidateQueries({ queryKey: batchKeys.detail(batchId) })]);
  };
  return (
    <div className="rounded-lg border border-amber-300 bg-amber-50 p-3 dark:border-amber-700 dark:bg-amber-950/40">
      <JobAnswerForm jobId={item.id} waiting={waiting} member={label} value={note} onChange={(_, v) => setNote(v)} onSubmit={submit} headingLevel={4} />
    </div>
  );
}
