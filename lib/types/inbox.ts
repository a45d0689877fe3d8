import type { ApiWaiting } from './team';

/**
 * What waits for the person (GET /api/v1/inbox, ADR 056). Every source answers the same shape, so every source
 * shares the card; only where it waits differs.
 */
export type InboxSource = 'chat' | 'team' | 'batch';

/** Where the item waits: the person's own chat, a team member's request on a team's page, or a batch's item. */
export type InboxWhere =
  | { source: 'chat'; conversationId: string; agentName: string; title: string }
  | {
      source: 'batch';
      batchId: string;
      itemId: string;
      /** The item's 0-based index in its batch (shown as "item index + 1"). */
      index: number;
      /** The item's fields, as its row gave them. */
      fields: Record<string, string>;
      /** The agent or team member the batch runs as; a member's team when it is one. */
      targetName: string;
      teamId: string | null;
      teamName: string | null;
      conversationId: string;
    }
  | {
      source: 'team';
      teamId: string;
      teamName: string;
      jobId: string;
      memberId: string | null;
      memberName: string | null;
      /** With no member: the job is a result returned to the person's chat, and this chat's agent is replying to it. */
      agentName: string | null;
      conversationId: string;
    };

export type InboxItem = {
  /** `chat:<run id>`, `team:<job id>` or `batch:<item id>`: stable while it waits; the bulk answer names items by it. */
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
