/**
 * What the verdict reads from a stopped deployment, whichever engine kept it: the app's jobs and runs (times as
 * epoch milliseconds) and each conversation thread's newest message list.
 */
import type { BaseMessage } from '@langchain/core/messages';

export type JobRow = {
  id: string;
  text: string;
  team_id: string;
  owner_id: string;
  kind: 'request' | 'receipt';
  member_id: string | null;
  conversation_id: string;
  source_member_id: string | null;
  parent_id: string | null;
  status: string;
  request_key: string;
  run_key: string | null;
  run_id: string | null;
  answer_key: string | null;
  result: string | null;
  error: string | null;
  created_at: number;
  admitted_at: number | null;
  completed_at: number | null;
};

export type RunRow = {
  id: string;
  conversation_id: string;
  owner_id: string;
  idempotency_key: string;
  status: string;
  kind: string;
  created_at: number;
  finished_at: number | null;
  /** The process that ran it last (ADR 033 §5; Postgres deployments with several processes), when recorded. */
  process_id?: string | null;
};

export type Facts = {
  /** Every job, in seq order. */
  jobs: JobRow[];
  runs: RunRow[];
  /** The thread's messages as its newest checkpoint lists them ([] when it has none). */
  messages(threadId: string): Promise<BaseMessage[]>;
  close(): Promise<void>;
};

export const JOB_COLUMNS =
  'id, text, team_id, owner_id, kind, member_id, conversation_id, source_member_id, parent_id, status, request_key, run_key, run_id, answer_key, result, error, created_at, admitted_at, completed_at';
export const RUN_COLUMNS = 'id, conversation_id, owner_id, idempotency_key, status, kind, created_at, finished_at';
