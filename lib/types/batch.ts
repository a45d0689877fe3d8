// The durable batch contract (ADR 059, docs/api.md "Batches"): shared by the server, the API client and the browser.
import type { ApiWaiting } from './team';

export const BATCH_STATUSES = ['running', 'cancelling', 'cancelled', 'completed'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

/** 'waiting': its run stopped on a question or an approval; it holds no slot until the person answers (ADR 059). */
export const BATCH_ITEM_STATUSES = ['queued', 'running', 'waiting', 'done', 'failed', 'cancelled'] as const;
export type BatchItemStatus = (typeof BATCH_ITEM_STATUSES)[number];

/** Who started the batch: a person (the API or the browser) or an agent's `batch_task` call. */
export type BatchOrigin = 'person' | 'tool';

export type BatchTarget =
  | { kind: 'agent'; agentId: string; name: string }
  | { kind: 'member'; teamId: string; memberId: string; name: string };

/** What a person can run a batch with: their agents, and their teams' members (/batches/new without a target). */
export type BatchTargetChoices = {
  agents: Array<Extract<BatchTarget, { kind: 'agent' }>>;
  teams: Array<{ teamId: string; name: string; members: Array<Extract<BatchTarget, { kind: 'member' }>> }>;
};

export type BatchCounts = { queued: number; running: number; waiting: number; done: number; failed: number; cancelled: number };

export type BatchView = {
  id: string;
  status: BatchStatus;
  target: BatchTarget;
  template: string;
  columns: string[];
  total: number;
  concurrency: number;
  maxAttempts: number;
  counts: BatchCounts;
  createdAt: string;
  startedAt: string;
  finishedAt: string | null;
  origin: BatchOrigin;
};

export type BatchItemView = {
  id: string;
  index: number;
  status: BatchItemStatus;
  attempts: number;
  input: Record<string, string>;
  /** The item's final answer, cut to LIMITS.batch.resultBytes (truncated says so). */
  result: string | null;
  truncated: boolean;
  error: string | null;
  /** What a waiting item's run asks (a question or an approval), answered like a team request; null otherwise. */
  waiting: ApiWaiting | null;
  runId: string | null;
  startedAt: string | null;
  finishedAt: string | null;
};

export type BatchListPage = { batches: BatchView[]; nextCursor: string | null };
export type BatchItemsPage = { items: BatchItemView[]; nextCursor: string | null };

export const isBatchItemFinished = (status: BatchItemStatus) => status === 'done' || status === 'failed' || status === 'cancelled';
export const isBatchFinished = (status: BatchStatus) => status === 'cancelled' || status === 'completed';
