import type { ApiWaiting } from './team';

/**
 * What waits for the person (GET /api/v1/inbox, ADR 056). Every source answers the same shape, so a new source
 * (batch items, later) joins the list without a new kind of card.
 */
export type InboxSource = 'chat' | 'team';

/** Where the item waits: the person's own chat, or a team member's request on a team's page. */
export type InboxWhere =
  | { source: 'chat'; conversationId: string; agentName: string; title: string }
  | { source: 'team'; teamId: string; teamName: string; jobId: string; memberId: string | null; memberName: string | null; conversationId: string };

export type InboxItem = {
  /** `chat:<run id>` or `team:<job id>`: stable while it waits; the bulk answer names items by it. */
  id: string;
  where: InboxWhere;
  /** What is asked, in the team feed's shape (an approval is an interrupt whose payload has type 'approval'). */
  waiting: ApiWaiting;
  /** When it started waiting (ISO 8601): the inbox is oldest first. */
  since: string;
};

export type InboxPage = {
  items: InboxItem[];
  /** Everything waiting for the person now (the nav's count), not only this page. */
  total: number;
  /** Pass as `after` for the next page; null on the last. */
  nextCursor: string | null;
};

/** One approval of a bulk answer: answered now, or why not (the others go on either way). */
export type BulkAnswerOutcome =
  | { id: string; ok: true }
  | { id: string; ok: false; code: 'already_answered' | 'not_found' | 'not_an_approval' | 'failed'; message: string };

export type BulkAnswerResult = { outcomes: BulkAnswerOutcome[] };
