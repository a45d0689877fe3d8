import type { ApiJob, ApiMember, JobStatus, MemberStatus, TeamStatus } from '@/lib/types/team';

export const FINISHED: ReadonlySet<JobStatus> = new Set(['completed', 'failed', 'cancelled']);
export const isFinished = (status: JobStatus) => FINISHED.has(status);
/** Cancel is offered while a job is unfinished and not already being cancelled. */
export const canCancel = (status: JobStatus) => !isFinished(status) && status !== 'cancelling';

type Tone = 'neutral' | 'info' | 'success' | 'warning' | 'danger';

export const JOB_STATUS_BADGE: Record<JobStatus, { label: string; tone: Tone }> = {
  queued: { label: 'Queued', tone: 'neutral' },
  running: { label: 'Running', tone: 'info' },
  waiting_input: { label: 'Needs input', tone: 'warning' },
  resuming: { label: 'Resuming', tone: 'info' },
  cancelling: { label: 'Cancelling', tone: 'neutral' },
  completed: { label: 'Completed', tone: 'success' },
  failed: { label: 'Failed', tone: 'danger' },
  cancelled: { label: 'Cancelled', tone: 'neutral' },
};

export const MEMBER_STATUS_BADGE: Record<MemberStatus, { label: string; tone: Tone }> = {
  needs_input: { label: 'Needs input', tone: 'warning' },
  running: { label: 'Running', tone: 'info' },
  queued: { label: 'Queued', tone: 'neutral' },
  ready: { label: 'Ready', tone: 'success' },
};

export const TEAM_STATUS_BADGE: Record<TeamStatus, { label: string; tone: Tone }> = {
  ready: { label: 'Ready', tone: 'success' },
  creating: { label: 'Setting up', tone: 'warning' },
};

/** Badges for a team's unfinished work: "n waiting for input" and "n in progress" (the rest of the pending jobs). */
export function workBadges(team: { pendingJobs: number; waitingJobs: number }): Array<{ label: string; tone: Tone }> {
  const out: Array<{ label: string; tone: Tone }> = [];
  if (team.waitingJobs > 0) out.push({ label: `${team.waitingJobs} waiting for input`, tone: 'warning' });
  const inProgress = team.pendingJobs - team.waitingJobs;
  if (inProgress > 0) out.push({ label: `${inProgress} in progress`, tone: 'info' });
  return out;
}

type Members = ReadonlyMap<string, Pick<ApiMember, 'name'>>;

const memberName = (members: Members, id: string | null | undefined) =>
  (id ? members.get(id)?.name : undefined) ?? 'a former member';

/** Who sent a job and to whom: "You → @Writer", "Writer → @Reviewer", "Result → @Writer". */
export function jobHeadline(job: ApiJob, members: Members): { from: string; to: string } {
  if (job.kind === 'receipt') {
    // A result with no member returns to the ordinary chat that @mentioned the team (its request reads "A conversation →").
    return { from: 'Result', to: job.memberId ? `@${memberName(members, job.memberId)}` : 'A conversation' };
  }
  const from = job.sourceMemberId
    ? memberName(members, job.sourceMemberId)
    : job.sourceConversationId
      ? 'A conversation'
      : 'You';
  return { from, to: `@${memberName(members, job.memberId)}` };
}

/** For a request whose result returns to a requesting member: where that return stands. */
export function deliveryLine(job: ApiJob, members: Members): string | null {
  if (job.kind !== 'request' || !job.receipt) return null;
  const requester = job.sourceMemberId ? memberName(members, job.sourceMemberId) : 'the requester';
  const status = job.receipt.status;
  if (status === 'completed') return `Returned to ${requester}`;
  const state =
    status === 'resuming' ? 'running' : status === 'waiting_input' ? 'needs input' : JOB_STATUS_BADGE[status].label.toLowerCase();
  return `Reply to ${requester}: ${state}`;
}

/** The first few words of a text, for "Follow-up to: …" links. */
export function firstWords(text: string, maxWords = 8, maxChars = 60): string {
  const words = text.trim().split(/\s+/).filter(Boolean);
  let out = words.slice(0, maxWords).join(' ');
  let cut = words.length > maxWords;
  if ([...out].length > maxChars) {
    out = [...out].slice(0, maxChars).join('').trimEnd();
    cut = true;
  }
  return cut ? `${out}…` : out;
}

/**
 * The job a card links back to: a receipt points at its request, a handoff at the request it came from, a retry
 * (or a request sent on to another member) at the request it retries.
 */
export function linkedJobId(job: ApiJob, jobs: readonly ApiJob[]): string | null {
  if (job.kind === 'receipt') {
    const request = jobs.find((j) => j.receipt?.id === job.id);
    return request?.id ?? job.parentId;
  }
  return job.parentId ?? job.retryOf ?? null;
}

/** Retry (or send to another member) is offered on a request that failed or was cancelled. */
export const canRetry = (job: Pick<ApiJob, 'kind' | 'status'>) => job.kind === 'request' && (job.status === 'failed' || job.status === 'cancelled');

/** Long texts start collapsed. */
export function isLongText(text: string, maxChars = 400, maxLines = 6): boolean {
  return text.length > maxChars || text.split('\n').length > maxLines;
}

/** Member status order for the sidebar badge: Needs input > Running > Queued > Ready. */
const MEMBER_RANK: Record<MemberStatus, number> = { needs_input: 0, running: 1, queued: 2, ready: 3 };
export const memberStatusRank = (s: MemberStatus) => MEMBER_RANK[s];

/**
 * Who acts in the job's run, as an approval or a live output names them: its member, or, for a result returned to
 * an ordinary chat, that chat's own agent replying to it (no member of the team).
 */
export function jobActor(job: ApiJob, members: Members): string {
  if (job.kind === 'receipt' && !job.memberId) return 'The conversation’s agent';
  return `@${memberName(members, job.memberId)}`;
}
