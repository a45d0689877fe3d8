/** API shapes of conversations, runs and messages, shared by the route handlers and the conversation UI. */
import type { AssemblyChange, AssemblyDescriptor } from './assembly';
import type { ApiAttachment } from './file';
import type { Provenance } from './provenance';

export type RunStatus = 'pending' | 'running' | 'success' | 'error' | 'interrupted' | 'cancelled';
/** 'note' rows record a framework note (e.g. @mentions sent); they never run the agent. */
export type RunKind = 'start' | 'resume' | 'note';

export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = ['pending', 'running'];
export const isRunActive = (status: RunStatus) => ACTIVE_RUN_STATUSES.includes(status);

export type Conversation = {
  id: string;
  /** Null once the agent was deleted; the conversation stays readable. */
  agentId: string | null;
  agentName: string;
  title: string;
  createdAt: string;
  updatedAt: string;
};

/** What a run is waiting for when its status is 'interrupted'. */
export type ApprovalInterrupt = {
  type: 'approval';
  tool: string;
  args: Record<string, unknown>;
  /** An MCP tool's server name and the tool's own name (`tool` is the name the model called it by). */
  mcp?: { server: string; tool: string };
};
export type ClarificationInterrupt = { type: 'clarification'; question: string; questionId: string };
export type RunInterrupt = ApprovalInterrupt | ClarificationInterrupt;

export type Run = {
  id: string;
  conversationId: string;
  kind: RunKind;
  status: RunStatus;
  model: string;
  error: string | null;
  /** Why the run ended early, beside its status: 'time_capped' (its wall-clock limit); null otherwise. */
  stopReason: string | null;
  /** A RunInterrupt for the built-in interrupts; any graph interrupt payload otherwise. */
  interrupt: unknown | null;
  /** Sums of the recorded model calls' reported usage; unreportedCalls counts calls that reported none. */
  inputTokens: number;
  outputTokens: number;
  modelCalls: number;
  unreportedCalls: number;
  /**
   * What the run cost, in US dollars as a decimal string, priced at its model's price when it finished (ADR 048);
   * null while it runs and when unknown (no price for the model, or a call reported no usage) — never "0" for that.
   */
  cost: string | null;
  /** How the agent was assembled for this run (null for runs recorded before assembly capture, and notes). */
  fingerprint: string | null;
  assembly: AssemblyDescriptor | null;
  /** Fields that differ from the conversation's previous run with a fingerprint; null when there is none. */
  assemblyChanges: AssemblyChange[] | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
};

/** `mcp`: an MCP tool's server and own name, once its result (or its decline) says so (ADR 057). */
export type ToolCall = { id: string; name: string; args: Record<string, unknown>; mcp?: { server: string; tool: string } };

export type Message = {
  id: string;
  role: 'user' | 'assistant' | 'tool';
  text: string;
  toolCalls?: ToolCall[];
  toolCallId?: string;
  toolName?: string;
  /** Tool messages only: an MCP tool's server and own name (`toolName` is the model-facing one). */
  mcp?: { server: string; tool: string };
  /**
   * Tool messages only: 'error' when the call did not succeed (the tool threw, the person declined it, or it never
   * ran); absent when the tool returned normally. The run's `step.tool` event records the same outcome.
   */
  status?: 'error';
  /** Tool messages only: true when the person declined the call, so it never ran (status is 'error' too). */
  declined?: true;
  /** The person's messages: the files sent with it (attached to its run), in the order sent; absent when none. */
  attachments?: ApiAttachment[];
  /**
   * Provenance the framework attached. Human messages: { kind: 'team_request' | 'receipt' | 'mention' |
   * 'clarification_answer', … } (usually with the runId). Assistant messages only when the framework wrote them
   * itself: { kind: 'framework_note' }.
   */
  meta?: Record<string, unknown>;
  /** Server-owned: what the message is and who produced it (lib/types/provenance.ts). */
  provenance?: Provenance;
};

/** An approval answer: the resume value of an `{ type: 'approval' }` interrupt. */
export type ApprovalDecision = { approved: boolean; note?: string };

/** What a listed conversation's newest run is doing: under way, stopped for the person's answer, or nothing. */
export type ConversationActivity = 'working' | 'waiting_for_you';
/** The team a member conversation belongs to: it can be deleted only once that team is (ADR 050). */
export type ConversationTeam = { id: string; name: string };
export type ConversationListItem = Conversation & { activity: ConversationActivity | null; team: ConversationTeam | null };
export type ConversationList = { conversations: ConversationListItem[] };
/** A team request waiting on the conversation's newest run (a question or an approval, or its answer on the way): answered on the team's page only. */
export type WaitingTeamRequest = { teamId: string; teamName: string; jobId: string };
/**
 * The batch whose item a hidden conversation runs (server/batches): a run there `cancelled` with its interrupt kept was
 * ended by that batch's cancel, not a team request's.
 */
export type ConversationBatch = { id: string };
export type ConversationDetail = {
  conversation: Conversation;
  messages: Message[];
  run: Run | null;
  teamRequest: WaitingTeamRequest | null;
  team: ConversationTeam | null;
  batch: ConversationBatch | null;
};
export type RunResponse = { run: Run };
