import type { CitationCheck, Receipt } from './receipts';
import type { StopReason } from './stop-reason';

export const DELEGATION_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type DelegationStatus = (typeof DELEGATION_STATUSES)[number];

/** Capabilities a delegation provider declares when it is registered (checked before anything starts). */
export type ProviderCapability = 'outputSchema' | 'depthLimit' | 'toolFilter' | 'persona';

/** What a parent receives as the `task` tool result for one child (also stored as delegations.result). */
export type DelegationResult = {
  delegationId: string;
  childRunId: string | null;
  status: Extract<DelegationStatus, 'completed' | 'failed' | 'cancelled'>;
  stopReason: StopReason | null;
  model: string;
  /**
   * The child's tokens as its provider reported them: null when it reported none (absent stays absent, never 0);
   * unreportedCalls counts its model calls that reported no usage (not in the sums).
   */
  usage: { inputTokens: number | null; outputTokens: number | null; modelCalls: number; unreportedCalls: number };
  receipts: Receipt[];
  /** The child's citations of its own receipts, each marked resolved or not. */
  citations: CitationCheck[];
  /** The child's final answer (text), or its captured structured output when an output schema was given. */
  output: string | null;
  structured?: unknown;
  error?: string;
};

/** One child as the API and the run-steps UI show it under its parent's step. */
export type DelegationView = {
  id: string;
  parentRunId: string;
  parentToolCallId: string;
  agentId: string | null;
  agentName: string | null;
  provider: string;
  description: string;
  depth: number;
  status: DelegationStatus;
  childRunId: string | null;
  result: DelegationResult | null;
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
};
