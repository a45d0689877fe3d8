/** Team API shapes shared by the server (producers) and the browser (consumers). Dates are ISO strings. */
import type { AssemblyChange } from './assembly';
import type { ApiAttachment } from './file';
import type { CitationCheck } from './receipts';
import type { StopReason } from './stop-reason';

/**
 * 'creating' until every member has its conversation (start-up and Reconnect finish an interrupted creation),
 * then 'ready'. There is no 'disconnected' state: nothing can take a ready team's member conversation or agent
 * away (agents in a team can't be deleted, conversations can't be deleted).
 */
export type TeamStatus = 'creating' | 'ready';
export type JobStatus =
  | 'queued'
  | 'running'
  | 'waiting_input'
  | 'resuming'
  | 'cancelling'
  | 'completed'
  | 'failed'
  | 'cancelled';
export type MemberStatus = 'needs_input' | 'running' | 'queued' | 'ready';
export type AdmissionHold = 'team_budget' | 'daily_token_cap';

export type ApiMember = {
  id: string;
  name: string;
  agentId: string | null;
  agentName: string;
  conversationId: string | null;
  status: MemberStatus;
};

export type ApiTeam = {
  id: string;
  name: string;
  goal: string;
  status: TeamStatus;
  revision: number;
  members: ApiMember[];
  /** Unfinished jobs (queued, running, waiting, …). */
  pendingJobs: number;
  /** Jobs waiting for the person's input. */
  waitingJobs: number;
  /** Tokens the team may spend in all; null = no team budget (ADR 023). */
  tokenBudget: number | null;
  /** Tokens its runs (and their delegated children) have spent, counted when each run finishes. */
  tokensUsed: number;
  /** Or the money it may spend in all, in US dollars as a decimal string; null = no money budget (ADR 048). */
  moneyBudget: string | null;
  /** US dollars its finished runs cost, as a decimal string: the runs whose cost is known (each priced when it finished). */
  spent: string;
  /** Finished runs whose cost is unknown (no price for their model, or usage unreported): `spent` leaves them out. */
  unknownCostRuns: number;
  /**
   * Why queued work is not being admitted: the team's budget is used up, or the account reached the operator's
   * daily token cap (until midnight UTC); null when work is admitted.
   */
  admissionHeld: AdmissionHold | null;
  /** Requests the team has taken, of LIMITS.team.requests; at the limit the workspace offers a clone. */
  requestCount: number;
  createdAt: string;
  updatedAt: string;
};

export type ApiTeamSummary = Omit<ApiTeam, 'members' | 'requestCount'> & { memberCount: number };

/** What a waiting job needs: a clarification (text answer) or a graph interrupt (JSON response). */
export type ApiWaiting =
  | { type: 'clarification'; question: string; questionId: string }
  | { type: 'interrupt'; payload: unknown };

export type ApiJob = {
  id: string;
  /** Insertion order within the team (rising, never reused): the feed's order and `activity?before=` cursor. */
  seq: number;
  kind: 'request' | 'receipt';
  /** Request: the member asked. Receipt: the member (if any) the result returns to. */
  memberId: string | null;
  conversationId: string;
  status: JobStatus;
  /** Present with details=true. */
  text?: string;
  result?: string | null;
  resultTruncated?: boolean | null;
  error?: string | null;
  waiting?: ApiWaiting | null;
  createdAt: string;
  completedAt: string | null;
  /** Null = the person. */
  sourceMemberId: string | null;
  sourceConversationId: string | null;
  parentId: string | null;
  rootId: string;
  /** For a request whose result returns to a requester: its receipt job. */
  receipt: { id: string; status: JobStatus } | null;
  /**
   * Present with details=true: the job's current run, if it has one, and the setup fields that changed since the
   * member's previous run (null when there is no previous run to compare with or nothing is known). A job that
   * stopped for the person's answer ran more than once: `earlierRunIds` are its runs before the current one, oldest
   * first (empty otherwise).
   */
  run?: { id: string; setupChanges: AssemblyChange[] | null; earlierRunIds: string[] } | null;
  /**
   * Present with details=true on a request with a result: each `[r2 calculator]` citation in the result, resolved
   * when the member run that wrote it made that call (server/agents/receipts) — not that the claim is true.
   */
  citations?: CitationCheck[];
  /**
   * Present with details=true: why the job's run stopped early (lib/types/stop-reason.ts), beside its status — a
   * capped run completes or fails its job as the run did. Null when it ran its course (or has no run yet).
   */
  stopReason?: StopReason | null;
  /** The failed or cancelled request this one retries (or sent to another member); null otherwise. */
  retryOf?: string | null;
  /** A request in the feed (activity, its changes, the export): the files the person attached, in the order sent. */
  attachments?: ApiAttachment[];
};

/**
 * Why a queued job (or an answer waiting for a slot) is not running, from the scheduler's own view
 * (server/scheduler/why-waiting.ts); lib/wait-reason-label.ts words it. `ahead`: admissible work the scheduler's
 * rotation would admit before it as slots free up (every account's). `jobId`: the earlier request it waits behind.
 */
export type ApiWaitReason =
  | { kind: 'slot'; ahead: number }
  | { kind: 'behind'; jobId: string }
  | { kind: 'your_answer'; jobId: string }
  | { kind: 'member_busy' }
  | { kind: 'team_budget' }
  | { kind: 'daily_cap' }
  | { kind: 'team_not_ready' }
  /** A running job whose model call waits for room at its provider (its concurrency or per-minute cap). */
  | { kind: 'provider' };

/** `GET /teams/:id/waiting`: a reason for each of the team's queued jobs, as of the team's revision. */
export type ApiTeamWaits = { revision: number; reasons: Record<string, ApiWaitReason> };

/** One job's answer in a bulk cancel, exactly what cancelling it alone answers (or its refusal). */
export type ApiCancelAllResult = { jobs: ApiJob[] };

export type ApiActivity =
  | { revision: number; unchanged: true }
  | { revision: number; unchanged?: false; totalJobs: number; jobs: ApiJob[] };

/**
 * `activity?since=REV`: the jobs changed after REV (with details). `truncated` means more changed than one answer
 * holds (or REV is not a revision this team had): re-read the first page instead of patching.
 */
export type ApiActivityChanges = {
  revision: number;
  since: number;
  changed: ApiJob[];
  truncated: boolean;
  /** Only with a feed filter: changed jobs that don't match it (to drop from a filtered feed) and its new count. */
  unmatched?: string[];
  totalJobs?: number;
};

export type ApiStateEntry = {
  id: string;
  kind: 'objective' | 'plan' | 'finding' | 'question' | 'requirement';
  title: string;
  content: string;
  status: 'active' | 'archived';
  revision: number;
  /** memberId null: the person wrote it (name "You"). */
  createdBy: { memberId: string | null; name: string };
  updatedBy: { memberId: string | null; name: string };
  source: { conversationId: string | null; jobId: string | null };
  updatedAt: string;
};
