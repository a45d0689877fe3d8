/**
 * Shapes of the team history and results readers, shared by the member tools (read_team_history,
 * search_team_results, read_team_result) and the HTTP API. Field names are snake_case because the same JSON is
 * what a model reads. Dates are ISO strings.
 */

/** A party named in a record. `member_id` is null for the person ("You") or the framework. */
export type HistoryParty = { member_id: string | null; name: string };

/** Who caused a job: a member (handoff), or the person ("You"), possibly from an ordinary conversation. */
export type HistoryRequester = { member_id: string | null; name: string; conversation_id: string | null };

/** One retained shared-record message. */
export type HistoryMessage = {
  seq: number;
  job_id: string | null;
  kind: 'request' | 'result' | 'error' | 'cancelled' | 'note';
  sender: HistoryParty;
  recipient: HistoryParty | null;
  text: string;
  /** True when `text` is shorter than what was recorded. */
  truncated: boolean;
  created_at: string;
};

export type ResultUnavailableReason = 'unfinished' | 'cancelled' | 'not_retained';

/** A finished request's answer: the stored result (completed) or error (failed), or why there is none. */
export type AnswerExcerpt =
  | { available: true; kind: 'result' | 'error'; excerpt: string; truncated: boolean }
  | { available: false; reason: ResultUnavailableReason };

export type ResultSummary = {
  job_id: string;
  status: 'completed' | 'failed' | 'cancelled';
  member: HistoryParty | null;
  requester: HistoryRequester;
  parent_id: string | null;
  created_at: string;
  completed_at: string | null;
  request: { excerpt: string; truncated: boolean };
  answer: AnswerExcerpt;
};

type PageMeta = {
  /** Pass it back (with the same filters) for the next, older page; null when there is nothing older. */
  next_cursor: string | null;
  /** The cursor's anchor record is no longer retained: the page is empty; start again without a cursor. */
  cursor_expired: boolean;
  /** True when the 24,000-byte response bound, not `limit`, ended this page. */
  bytes_limited: boolean;
};

export type HistoryPage = PageMeta & { messages: HistoryMessage[] };
export type ResultsPage = PageMeta & { results: ResultSummary[] };

export type TeamResultAnswer =
  | { available: true; kind: 'result' | 'error'; text: string; truncated: boolean }
  | { available: false; reason: ResultUnavailableReason };

/** One request or receipt with its retained answer. */
export type TeamResult = {
  job: {
    job_id: string;
    kind: 'request' | 'receipt';
    status: string;
    /** The member whose conversation runs the job (for a receipt: the requesting member, if any). */
    member: HistoryParty | null;
    /** Who caused the job (for a receipt: the member whose result it returns). */
    requester: HistoryRequester;
    parent_id: string | null;
    root_id: string;
    created_at: string;
    admitted_at: string | null;
    completed_at: string | null;
    updated_at: string;
    conversation: { conversation_id: string; run_id: string | null };
    request: { excerpt: string; truncated: boolean };
  };
  result: TeamResultAnswer;
};
