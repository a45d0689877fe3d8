/** The conversation @mention API as the browser sees it (GET/POST /api/v1/conversations/:id/mentions). */

/** A member of one of the owner's ready teams that a conversation can mention. Routing uses memberId only. */
export type MentionTarget = { teamId: string; teamName: string; memberId: string; memberName: string; label: string };

/** A picked recipient, shown as a chip. The label is kept from the moment of picking. */
export type Recipient = { memberId: string; label: string };

/** One queued request, one per mentioned member. */
export type QueuedMention = { jobId: string; teamId: string; memberId: string; label: string; status: string };

export type MentionTargetsResponse = { targets: MentionTarget[] };
export type SendMentionsResponse = { jobs: QueuedMention[] };
