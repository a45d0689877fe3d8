import 'server-only';
import { and, asc, eq, gt, lte, max } from 'drizzle-orm';
import { getDb, schema, type Db } from '@/server/db';
import { formatBytes } from '@/lib/byte-size';
import { formatUsdText, NANO, nanosToUsd, parseDecimal } from '@/lib/money';
import type { ApiAttachment } from '@/lib/types/file';
import { attachmentsFor } from '@/server/files/attachments';
import { teamSpend, teamTokensUsed } from '@/server/budgets/team-totals';
import type { ApiStateEntry } from '@/lib/types/team';
import type { Job, Team, TeamMember } from '@/server/db/schema';
import { fenced, inline } from './export-markdown';
import { listStateForApi } from './state';
import { requireTeam, teamMembers } from './teams';

export type ExportFormat = 'md' | 'json';

/** Jobs read per step of the stream: a request's text and result are at most ~14 KB, so a step stays well under 1 MB. */
export const EXPORT_BATCH = 25;

export type TeamExport = {
  /** ASCII file name; `contentDisposition` also carries the team's own name (UTF-8). */
  filename: string;
  contentDisposition: string;
  contentType: string;
  /**
   * The document in pieces, read lazily: each step reads one batch of jobs (by seq, after the last one sent), so a
   * large team is never held in memory and no database cursor stays open between steps. The jobs are those that
   * existed when the export began; each shows its state when its batch was read. A team deleted meanwhile ends the
   * stream with an error (404) rather than a document that looks complete.
   */
  chunks: AsyncGenerator<string, void, undefined>;
};

/** Owner-scoped: another owner's team (or a missing one) is a 404 thrown here, before any byte is streamed. */
export async function exportTeam(ownerId: string, teamId: string, format: ExportFormat, now = new Date()): Promise<TeamExport> {
  const db = getDb();
  const team = await requireTeam(ownerId, teamId, db);
  const members = await teamMembers(teamId, db);
  const usage = await exportUsage(teamId);
  const lastSeq = (await db.select({ seq: max(schema.jobs.seq) }).from(schema.jobs).where(eq(schema.jobs.teamId, teamId)))[0]?.seq ?? 0;
  const batches = jobBatches(db, ownerId, teamId, lastSeq);
  const state = async () => (await listStateForApi(ownerId, teamId)).entries;
  const filename = `${fileStem(team.name)}.${format}`;
  return {
    filename,
    contentDisposition: attachmentHeader(filename, `${team.name} team.${format}`),
    contentType: format === 'md' ? 'text/markdown; charset=utf-8' : 'application/json; charset=utf-8',
    chunks: format === 'md' ? markdown(team, members, usage, batches, state, now) : json(team, members, usage, batches, state, now),
  };
}

/** What the team has used (finished runs, as its header says): tokens and cost beside them (ADR 048). */
type ExportUsage = { tokensUsed: number; spent: string; unknownCostRuns: number };
async function exportUsage(teamId: string): Promise<ExportUsage> {
  const spend = await teamSpend(teamId);
  return { tokensUsed: await teamTokensUsed(teamId), spent: nanosToUsd(spend.nanos), unknownCostRuns: spend.unknownRuns };
}

/** One step's jobs, with what each request attached (one read per step). */
type JobBatch = { rows: Job[]; attached: Map<string, ApiAttachment[]> };

async function* jobBatches(db: Db, ownerId: string, teamId: string, lastSeq: number): AsyncGenerator<JobBatch, void, undefined> {
  let after = 0;
  for (;;) {
    // The team is checked again at every step: deleted mid-export, the download fails instead of ending early.
    await requireTeam(ownerId, teamId, db);
    const rows = await db
      .select()
      .from(schema.jobs)
      .where(and(eq(schema.jobs.teamId, teamId), eq(schema.jobs.ownerId, ownerId), gt(schema.jobs.seq, after), lte(schema.jobs.seq, lastSeq)))
      .orderBy(asc(schema.jobs.seq))
      .limit(EXPORT_BATCH);
    if (!rows.length) return;
    yield { rows, attached: await attachmentsFor(ownerId, rows.filter((r) => r.kind === 'request').map((r) => r.id), db) };
    after = rows[rows.length - 1]!.seq;
  }
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

// ─────────────────────────────── JSON ───────────────────────────────

/**
 * Every field a person could want back, with ids and times; idempotency keys and the frozen run input are internal.
 * A request lists the files the person attached (a deleted one without its id).
 */
function jobJson(j: Job, attached: Map<string, ApiAttachment[]>) {
  return {
    id: j.id,
    seq: j.seq,
    kind: j.kind,
    memberId: j.memberId,
    conversationId: j.conversationId,
    sourceMemberId: j.sourceMemberId,
    sourceConversationId: j.sourceConversationId,
    parentId: j.parentId,
    rootId: j.rootId,
    depth: j.depth,
    status: j.status,
    text: j.text,
    result: j.result,
    resultTruncated: j.resultTruncated,
    error: j.error,
    waiting: j.waiting ?? null,
    answer: pendingAnswer(j.answer),
    runId: j.runId,
    receiptJobId: j.receiptJobId,
    retryOfJobId: j.retryOfJobId,
    ...(j.kind === 'request' ? { attachments: attached.get(j.id) ?? [] } : {}),
    createdAt: iso(j.createdAt),
    admittedAt: iso(j.admittedAt),
    completedAt: iso(j.completedAt),
    updatedAt: iso(j.updatedAt),
  };
}

/** A pending answer without its idempotency key (the export leaves keys out). */
function pendingAnswer(answer: unknown): unknown {
  if (!answer || typeof answer !== 'object') return null;
  const { answerKey: _key, ...rest } = answer as Record<string, unknown>;
  return rest;
}

async function* json(team: Team, members: TeamMember[], usage: ExportUsage, batches: AsyncIterable<JobBatch>, state: () => Promise<ApiStateEntry[]>, now: Date) {
  const head = {
    format: 'ensemble.team-export',
    version: 1,
    exportedAt: now.toISOString(),
    team: {
      id: team.id,
      name: team.name,
      goal: team.goal,
      status: team.status,
      revision: team.revision,
      tokenBudget: team.tokenBudget,
      moneyBudget: team.moneyBudgetNanos === null ? null : nanosToUsd(team.moneyBudgetNanos),
      ...usage,
      clonedFromTeamId: team.clonedFromTeamId,
      createdAt: iso(team.createdAt),
      updatedAt: iso(team.updatedAt),
    },
    members: members.map((m) => ({ id: m.id, name: m.name, agentId: m.agentId, agentName: m.agentName, conversationId: m.conversationId, position: m.position })),
  };
  // The head object without its closing brace, then the jobs array streamed, then the state.
  yield `${JSON.stringify(head, null, 2).replace(/\n}$/, '')},\n  "jobs": [`;
  let first = true;
  for await (const { rows, attached } of batches) {
    yield rows.map((r) => `${first ? ((first = false), '\n    ') : ',\n    '}${JSON.stringify(jobJson(r, attached))}`).join('');
  }
  yield `${first ? '' : '\n  '}],\n  "state": ${JSON.stringify(await state(), null, 2).replace(/\n/g, '\n  ')}\n}\n`;
}

// ─────────────────────────────── Markdown ───────────────────────────────

const STATUS_WORD: Record<Job['status'], string> = {
  queued: 'Queued',
  running: 'Running',
  waiting_input: 'Needs input',
  resuming: 'Resuming',
  cancelling: 'Cancelling',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};
const KIND_HEADING: Record<ApiStateEntry['kind'], string> = {
  objective: 'Objectives',
  plan: 'Plans',
  requirement: 'Requirements',
  question: 'Open questions',
  finding: 'Findings',
};

/**
 * "12,340 tokens · $0.12 (2 runs of unknown cost not counted)": finished runs, as the team header counts them. When
 * no finished run has a known cost, the cost is unknown, never "$0.00" (ADR 048; the header says "cost unknown").
 */
function usageLine(u: ExportUsage): string {
  const tokens = `${u.tokensUsed.toLocaleString('en-US')} tokens`;
  if (!u.unknownCostRuns) return `${tokens} · ${formatUsdText(u.spent)}`;
  const runs = `${u.unknownCostRuns.toLocaleString('en-US')} ${u.unknownCostRuns === 1 ? 'run' : 'runs'} of unknown cost`;
  if (parseDecimal(u.spent, NANO) === 0) return `${tokens} · cost unknown (${runs})`;
  return `${tokens} · ${formatUsdText(u.spent)} (${runs} not counted)`;
}

async function* markdown(team: Team, members: TeamMember[], usage: ExportUsage, batches: AsyncIterable<JobBatch>, state: () => Promise<ApiStateEntry[]>, now: Date) {
  const names = new Map(members.map((m) => [m.id, m.name]));
  const who = (id: string | null) => (id ? `@${inline(names.get(id) ?? 'a former member')}` : 'You');
  yield [
    `# ${inline(team.name)}\n`,
    `Exported from Ensemble on ${now.toISOString()}.\n`,
    `## Goal\n`,
    fenced(team.goal),
    `## Members\n`,
    members.map((m) => `- ${inline(m.name)} (agent: ${inline(m.agentName)})\n`).join(''),
    `\n## Usage\n`,
    `${usageLine(usage)}\n`,
    `\n## Requests\n`,
  ].join('\n');
  let count = 0;
  // Each request's number in this document, so a retry or a handoff can name the request it came from (which is
  // always earlier: jobs are read in insertion order).
  const numbers = new Map<string, number>();
  const ref = (id: string | null) => (id && numbers.has(id) ? `request ${numbers.get(id)}` : null);
  for await (const { rows, attached } of batches) {
    const out: string[] = [];
    for (const j of rows) {
      // A receipt only carries a finished request's result back to the member that asked: the request's section,
      // headed "@Sender → @Member", already holds that result.
      if (j.kind !== 'request') continue;
      count += 1;
      numbers.set(j.id, count);
      const from = j.sourceMemberId ? who(j.sourceMemberId) : j.sourceConversationId ? 'A conversation' : 'You';
      const [relation, earlier] = j.retryOfJobId && !j.parentId ? ['retry of', ref(j.retryOfJobId)] : ['follow-up to', ref(j.parentId)];
      const origin = earlier && `${relation} ${earlier}`;
      const times = [origin, `sent ${j.createdAt.toISOString()}`, j.completedAt ? `finished ${j.completedAt.toISOString()}` : null].filter(Boolean).join(', ');
      out.push(`\n### ${count}. ${from} → ${who(j.memberId)} · ${STATUS_WORD[j.status]}\n\n`, `_${times}_\n\n`, `Request:\n\n`, fenced(j.text));
      const files = attached.get(j.id) ?? [];
      if (files.length) out.push(`\nAttached:\n\n`, files.map(attachmentLine).join(''));
      if (j.result !== null) out.push(`\nResult${j.resultTruncated ? ' (cut to the result limit)' : ''}:\n\n`, fenced(j.result));
      if (j.error !== null) out.push(`\nError:\n\n`, fenced(j.error));
    }
    if (out.length) yield out.join('');
  }
  if (count === 0) yield '\nNo requests yet.\n';
  const entries = await state();
  const active = entries.filter((e) => e.status === 'active');
  const archived = entries.filter((e) => e.status === 'archived');
  const entry = (e: ApiStateEntry) =>
    `\n#### ${inline(e.title)}\n\n_By ${e.createdBy.memberId ? `@${inline(e.createdBy.name)}` : 'You'}, revision ${e.revision}, updated ${e.updatedAt}_\n\n${fenced(e.content)}`;
  const parts = [`\n## Team state\n`];
  if (!entries.length) parts.push('\nNo entries.\n');
  for (const kind of Object.keys(KIND_HEADING) as Array<ApiStateEntry['kind']>) {
    const group = active.filter((e) => e.kind === kind);
    if (group.length) parts.push(`\n### ${KIND_HEADING[kind]}\n`, ...group.map(entry));
  }
  if (archived.length) parts.push(`\n### Archived\n`, ...archived.map(entry));
  yield parts.join('');
}

/**
 * "- report\.pdf (1.5 MiB, application/pdf, file 1a2b…)": the name a person wrote, escaped (the type is ours, sniffed),
 * and the file's id (the API's /files/:id). A file deleted since says so, without an id.
 */
function attachmentLine(a: ApiAttachment): string {
  const facts = `${formatBytes(a.size, 'en')}, ${a.mediaType}`;
  return a.deleted ? `- ${inline(a.name)} (${facts}, deleted)\n` : `- ${inline(a.name)} (${facts}, file ${a.fileId})\n`;
}

// ─────────────────────────────── file name ───────────────────────────────

/** An ASCII file name from the team's name ("Q3 Launch!" → "q3-launch-team"); the header adds the UTF-8 original. */
export function fileStem(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug ? `${slug}-team` : 'team';
}

/**
 * Content-Disposition for a download: a plain ASCII `filename` for every client and the original name in
 * `filename*` (RFC 6266 / 8187), so a CJK or emoji team name survives.
 */
export function attachmentHeader(asciiName: string, displayName: string): string {
  const encoded = encodeURIComponent(displayName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${asciiName.replace(/["\\]/g, '')}"; filename*=UTF-8''${encoded}`;
}
