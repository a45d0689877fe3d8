/** What the latest run means for the chat screen. Pure: the components only render these answers. */
import { mcpSourceOf, type McpSource } from '@/components/approvals/approval';
import type { Run } from './types';

export type ApprovalInterrupt = { type: 'approval'; tool: string; args: unknown; mcp?: McpSource };
export type ClarificationInterrupt = { type: 'clarification'; question: string; questionId: string | null };
export type Interrupt = ApprovalInterrupt | ClarificationInterrupt;

export function isRunActive(run: Pick<Run, 'status'> | null | undefined): boolean {
  return run?.status === 'pending' || run?.status === 'running';
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The interrupt a run is waiting on, checked field by field (it arrives as unknown JSON); null when none. */
export function readInterrupt(run: Pick<Run, 'status' | 'interrupt'> | null | undefined): Interrupt | null {
  if (!run || run.status !== 'interrupted' || !isRecord(run.interrupt)) return null;
  const i = run.interrupt;
  if (i.type === 'approval' && typeof i.tool === 'string') {
    const mcp = mcpSourceOf(i.mcp);
    return { type: 'approval', tool: i.tool, args: i.args, ...(mcp ? { mcp } : {}) };
  }
  if (i.type === 'clarification' && typeof i.question === 'string') {
    return { type: 'clarification', question: i.question, questionId: typeof i.questionId === 'string' ? i.questionId : null };
  }
  return null;
}

export type RunView =
  | { kind: 'none' }
  | { kind: 'active'; label: string }
  /** stopReason: a guard capped the run (lib/types/stop-reason.ts). */
  | { kind: 'error'; message: string; stopReason?: string }
  /**
   * tool: a team request's cancel ended the approval of this tool (the run keeps its interrupt); withBatch: a batch's
   * cancel did (the conversation runs one of its items).
   */
  | { kind: 'cancelled'; tool?: string; withBatch?: true }
  | { kind: 'approval'; interrupt: ApprovalInterrupt }
  | { kind: 'clarification'; interrupt: ClarificationInterrupt }
  /** Interrupted with a payload this screen does not know; the person can still send a message. */
  | { kind: 'waiting' }
  | { kind: 'done'; stopReason?: string };

/** `batchItem`: the conversation runs a batch's item (ConversationDetail.batch), so a cancelled wait ended with its batch. */
export function runView(run: Run | null | undefined, { batchItem = false }: { batchItem?: boolean } = {}): RunView {
  if (!run) return { kind: 'none' };
  switch (run.status) {
    case 'pending':
    case 'running':
      return { kind: 'active', label: 'Running…' };
    case 'error':
      return { kind: 'error', message: run.error?.trim() || 'The run failed without an error message.', ...(run.stopReason ? { stopReason: run.stopReason } : {}) };
    case 'cancelled': {
      const i = readInterrupt({ status: 'interrupted', interrupt: run.interrupt });
      if (i?.type !== 'approval') return { kind: 'cancelled' };
      return { kind: 'cancelled', tool: i.mcp?.tool ?? i.tool, ...(batchItem ? { withBatch: true as const } : {}) };
    }
    case 'interrupted': {
      const i = readInterrupt(run);
      if (i?.type === 'approval') return { kind: 'approval', interrupt: i };
      if (i?.type === 'clarification') return { kind: 'clarification', interrupt: i };
      return { kind: 'waiting' };
    }
    default:
      return run.stopReason ? { kind: 'done', stopReason: run.stopReason } : { kind: 'done' };
  }
}

const progress: Record<Run['status'], number> = { pending: 0, running: 1, interrupted: 2, success: 2, error: 2, cancelled: 2 };

/**
 * Which of two readings of the latest run to show: a run the server just returned from a POST, or the one in
 * the cache (possibly read by a poll that finished after the POST). A different run id means the POST's run
 * is newer; for the same run, the reading further along its lifecycle wins.
 */
export function laterRun(cached: Run | null | undefined, fromPost: Run): Run {
  if (!cached || cached.id !== fromPost.id) return fromPost;
  return progress[cached.status] >= progress[fromPost.status] ? cached : fromPost;
}
