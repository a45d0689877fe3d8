import type { SkillRef } from './skill';
/**
 * Run events: the one ordered record of what happened inside a run (conversation run or team job run).
 * Produced by server/agents/observe, served by GET /api/v1/runs/:id/events, shown by the live-steps UI.
 * Every event has a per-run `seq` starting at 1. Text fields are capped (LIMITS.runEvents.textChars) and flagged
 * `truncated` when cut.
 */

export type RunOutcome = 'completed' | 'failed' | 'cancelled' | 'interrupted';

/** A tool call as an assistant step asked for it; `args` is the JSON text of the arguments, capped. */
/** `mcp`: an MCP tool's server and own name (`name` is the model-facing one), for the person (ADR 057). */
export type StepToolCall = { id: string; name: string; args: string; truncated?: true; mcp?: { server: string; tool: string } };

export type RunEventData =
  | { type: 'run.started'; kind: 'start' | 'resume' | 'continue'; model: string; fingerprint: string | null }
  | {
      type: 'model.call';
      model: string;
      /** Tokens as the provider reported them; absent when it reported none (never estimated as zero). */
      inputTokens?: number;
      outputTokens?: number;
      latencyMs: number;
      finishReason?: string;
      /** A system call the framework made (e.g. a compaction summary), not one of the agent's turns. */
      system?: 'summary';
      /** The attempt's number when the call was retried after a transient failure (absent: its first and only one). */
      attempt?: number;
      error?: string;
    }
  /**
   * A model call waits for room at its provider (its concurrency or per-minute cap, counted across every run:
   * server/providers/capacity): why, recorded when the wait starts and when its reason changes.
   */
  | {
      type: 'model.wait';
      model: string;
      reason: 'queue' | 'concurrency' | 'rate';
      /** queue: calls queued before it. */
      ahead?: number;
      /** concurrency: the provider's calls in flight, and its cap. */
      inFlight?: number;
      max?: number;
      /** rate: the provider's cap on calls started per minute. */
      perMinute?: number;
    }
  | {
      type: 'step.assistant';
      text: string;
      truncated?: true;
      toolCalls: StepToolCall[];
      /** Calls a response guard removed before they ran (server/agents/guards), and the stop reason it gave, if any. */
      removedToolCalls?: StepToolCall[];
      stopReason?: string;
    }
  | {
      type: 'step.tool';
      toolCallId: string;
      tool: string;
      result: string;
      truncated?: true;
      durationMs: number;
      status: 'success' | 'error';
      /** The person declined the call, so it never ran (status is 'error'). */
      declined?: true;
      /** The result's receipt id in its run's ledger (r1, r2, …; server/agents/receipts); absent on older events. */
      receipt?: string;
      /** A `task` call's child (server/agents/delegation): its ledger row and its run, when it started one. */
      delegationId?: string;
      childRunId?: string;
      /** An MCP tool's call: its server's name and the tool's own name (`tool` is the name the model used). */
      mcp?: { server: string; tool: string };
      /** A web tool's result: where it came from, `web:<host>` or `web-search:<provider>` (never a path or query); a skill's read: `skill:<name>`. */
      origin?: string;
      /** A read_skill result: the skill it read, by reference (id, the pack's content hash, the file), never its text. */
      skill?: SkillRef;
    }
  /** The interrupt payload, or its JSON text cut to the cap (`truncated`) when longer. */
  | { type: 'interrupt'; interrupt: unknown; truncated?: true }
  /** The answer a resume run carries, or its JSON text cut to the cap (`truncated`) when longer. */
  | { type: 'resume'; value: unknown; truncated?: true }
  | {
      type: 'compaction';
      /** The messages the model no longer receives: their ids and content hashes (sha256, hex, 16 chars). */
      removed: Array<{ id: string; hash: string }>;
      tokensBefore: number;
      tokensAfter: number;
      /** How tokens were counted: the model's tokenizer, or the documented estimate. */
      counter: 'tokenizer' | 'estimate';
      summaryMessageId: string;
    }
  /**
   * MCP servers the run's setup names that it could not use (ADR 055): deleted since the agent was saved, or not the
   * owner's to use. Their tools were not offered. By id only: a deleted server's name went with it, and another
   * account's is not shown. Recorded right after `run.started` (and `resume`).
   */
  | { type: 'tools.unavailable'; mcpServers: string[] }
  | { type: 'run.finished'; outcome: RunOutcome; error?: string; stopReason?: string | null };

export type RunEventType = RunEventData['type'];

export type ApiRunEvent = RunEventData & { runId: string; seq: number; at: string };

/** GET /api/v1/runs/:id/events?after=SEQ&limit=1..200 */
export type ApiRunEventsPage = {
  runId: string;
  events: ApiRunEvent[];
  /** The highest seq returned (or `after` when none): pass it as `after` to follow the run. */
  nextAfter: number;
  /** True when more events exist after this page right now. */
  hasMore: boolean;
  /** Whether the run has finished: no event will follow the last one. */
  finished: boolean;
};

/** Token totals from recorded model calls. `unreportedCalls` counts calls whose provider reported no usage. */
export type TokenTotals = { inputTokens: number; outputTokens: number; modelCalls: number; unreportedCalls: number };
