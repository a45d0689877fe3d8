/**
 * The crash test's verdict, read from the databases after the servers stopped: nothing acknowledged was lost,
 * nothing ran twice, every handoff has exactly one receipt, nothing is stuck, every outcome is the scripted one.
 * The facts come from a reader of the engine's storage written independently of server/db (sqlite-facts.ts,
 * pg-facts.ts).
 */
import type { BaseMessage } from '@langchain/core/messages';
import type { Facts, JobRow, RunRow } from './facts';
import { expected, type Ack, type PlannedRequest } from './workload';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

export type Verdict = {
  jobs: { total: number; requests: number; handoffs: number; receipts: number; byStatus: Record<string, number> };
  runs: number;
  lost: string[];
  duplicated: string[];
  stuck: string[];
  wrong: string[];
  receipts: string[];
  /** Recovery time per restart (ms from spawn to the first job or run finishing), where work was pending. */
  firstProgressMs: number[];
};

type Meta = { jobId?: string; kind?: string };
const metaOf = (m: BaseMessage) => (m.additional_kwargs?.ensemble ?? {}) as Meta;

export type Restart = { killedAt: number; spawnedAt: number };

export async function verify(facts: Facts, plan: PlannedRequest[], acks: Map<number, Ack>, answers: Map<string, string>, restarts: Restart[]): Promise<Verdict> {
  const { jobs, runs } = facts;
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const runsByKey = new Map<string, RunRow[]>();
  for (const run of runs) {
    const key = `${run.conversation_id}\u0000${run.idempotency_key}`;
    runsByKey.set(key, [...(runsByKey.get(key) ?? []), run]);
  }
  const runsFor = (job: JobRow, key: string) => runsByKey.get(`${job.conversation_id}\u0000${key}`) ?? [];
  const verdict: Verdict = {
    jobs: {
      total: jobs.length,
      requests: jobs.filter((j) => j.kind === 'request' && !j.source_member_id).length,
      handoffs: jobs.filter((j) => j.kind === 'request' && !!j.source_member_id).length,
      receipts: jobs.filter((j) => j.kind === 'receipt').length,
      byStatus: {},
    },
    runs: runs.length,
    lost: [],
    duplicated: [],
    stuck: [],
    wrong: [],
    receipts: [],
    firstProgressMs: [],
  };
  for (const j of jobs) verdict.jobs.byStatus[j.status] = (verdict.jobs.byStatus[j.status] ?? 0) + 1;

  // Nothing stuck: every job and every run finished.
  for (const j of jobs) if (!TERMINAL.has(j.status)) verdict.stuck.push(`job ${j.id} (${j.kind}) is ${j.status}`);
  for (const r of runs) if (r.status === 'pending' || r.status === 'running') verdict.stuck.push(`run ${r.id} is ${r.status}`);

  // Nothing ran twice: one row per (conversation, key) — the unique index — and, per admission, one run and
  // one human turn in the member's thread.
  for (const [key, rows] of runsByKey) if (rows.length > 1) verdict.duplicated.push(`${rows.length} runs share ${key.replace('\u0000', ' / ')}`);
  const threads = new Map<string, BaseMessage[]>();
  const threadOf = async (conversationId: string) => {
    if (!threads.has(conversationId)) threads.set(conversationId, await facts.messages(conversationId));
    return threads.get(conversationId)!;
  };
  for (const j of jobs) {
    if (j.admitted_at == null && j.run_id == null) continue;
    const starts = runs.filter((r) => r.idempotency_key.startsWith(`job:${j.id}:start`));
    if (starts.length !== 1) verdict.duplicated.push(`job ${j.id} has ${starts.length} start runs`);
    const turns = (await threadOf(j.conversation_id)).filter(
      (m) => m.getType() === 'human' && metaOf(m).jobId === j.id && (metaOf(m).kind === 'team_request' || metaOf(m).kind === 'receipt'),
    );
    if (turns.length !== 1) verdict.duplicated.push(`job ${j.id} has ${turns.length} human turns in its member thread`);
    const answerRuns = runs.filter((r) => r.idempotency_key.startsWith(`job:${j.id}:answer:`));
    const answerTurns = (await threadOf(j.conversation_id)).filter((m) => m.getType() === 'human' && metaOf(m).jobId === j.id && metaOf(m).kind === 'clarification_answer');
    if (answerTurns.length !== answerRuns.length) verdict.duplicated.push(`job ${j.id}: ${answerRuns.length} answer runs but ${answerTurns.length} answer turns`);
    if (j.answer_key && runsFor(j, `job:${j.id}:answer:${j.answer_key}`).length !== 1) verdict.duplicated.push(`job ${j.id}: answer ${j.answer_key} ran ${runsFor(j, `job:${j.id}:answer:${j.answer_key}`).length} times`);
  }
  // Batch item runs are checked item by item (./batches.ts).
  const stray = runs.filter((r) => !r.idempotency_key.startsWith('job:') && !r.idempotency_key.startsWith('batch-item:'));
  for (const r of stray) verdict.duplicated.push(`run ${r.id} has no job key (${r.idempotency_key})`);

  // Every handoff that finished has exactly one receipt; nothing else has one.
  const receiptsOf = new Map<string, JobRow[]>();
  for (const j of jobs) if (j.kind === 'receipt') receiptsOf.set(j.parent_id ?? '', [...(receiptsOf.get(j.parent_id ?? '') ?? []), j]);
  for (const j of jobs) {
    if (j.kind !== 'request') continue;
    const count = receiptsOf.get(j.id)?.length ?? 0;
    const wanted = j.source_member_id && (j.status === 'completed' || j.status === 'failed') ? 1 : 0;
    if (count !== wanted) verdict.receipts.push(`request ${j.id} (${j.source_member_id ? 'handoff' : 'from the person'}, ${j.status}) has ${count} receipts, expected ${wanted}`);
  }
  for (const [parentId, rows] of receiptsOf) if (!byId.has(parentId)) verdict.receipts.push(`${rows.length} receipts for a missing request ${parentId}`);

  // Every acknowledged request (and answer) is there, finished, with the scripted outcome.
  for (const planned of plan) {
    const ack = acks.get(planned.index);
    if (!ack) {
      verdict.lost.push(`request ${planned.index} was never acknowledged`);
      continue;
    }
    const job = byId.get(ack.jobId);
    if (!job || job.request_key !== `${planned.draftKey}:${planned.member.id}`) {
      verdict.lost.push(`acknowledged request ${planned.index} (job ${ack.jobId}) is missing`);
      continue;
    }
    if (!TERMINAL.has(job.status)) continue; // counted as stuck
    checkOutcome(planned, job, jobs, receiptsOf, verdict.wrong);
  }
  for (const [jobId, answerKey] of answers) {
    const job = byId.get(jobId);
    if (job?.answer_key !== answerKey) verdict.lost.push(`acknowledged answer ${answerKey} of job ${jobId} is not recorded`);
  }

  verdict.firstProgressMs = restarts.flatMap(({ killedAt, spawnedAt }) => {
    const pending = jobs.some((j) => j.created_at <= killedAt && (j.completed_at == null || j.completed_at > killedAt));
    if (!pending) return [];
    const progress = [...jobs.map((j) => j.completed_at), ...runs.map((r) => r.finished_at)].filter((t): t is number => t != null && t > spawnedAt);
    return progress.length ? [Math.min(...progress) - spawnedAt] : [];
  });
  return verdict;
}

function checkOutcome(planned: PlannedRequest, job: JobRow, jobs: JobRow[], receiptsOf: Map<string, JobRow[]>, wrong: string[]): void {
  const i = planned.index;
  const want = (what: string, ok: boolean, got: unknown) => {
    if (!ok) wrong.push(`request ${i} (${planned.kind}): ${what}; got ${JSON.stringify(got)}`);
  };
  const children = jobs.filter((j) => j.kind === 'request' && j.parent_id === job.id);
  if (planned.kind === 'plain') want(`result ${expected.reply(i)}`, job.status === 'completed' && job.result === expected.reply(i), [job.status, job.result ?? job.error]);
  if (planned.kind === 'ask') want(`result ${expected.accepted(i)}`, job.status === 'completed' && job.result === expected.accepted(i), [job.status, job.result ?? job.error]);
  if (planned.kind === 'plain' || planned.kind === 'ask') {
    want('no handoffs', children.length === 0, children.length);
    return;
  }
  want(`result ${expected.handed(i)}`, job.status === 'completed' && job.result === expected.handed(i), [job.status, job.result ?? job.error]);
  want('exactly one handoff', children.length === 1, children.length);
  const child = children[0];
  if (!child) return;
  want('the handoff goes to the planned member', child.member_id === planned.target?.id && child.request_key === `tool:${planned.member.conversationId}:${expected.handoffRequestId(i)}`, [child.member_id, child.request_key]);
  // The request the member sent is the planned one, and the teammate answered it as its owner scripted it.
  want(`peer request ${expected.peerRequest(i)}`, child.text === expected.peerRequest(i), child.text);
  if (planned.kind === 'handoff') {
    const reply = expected.peerReply(i, planned.target!.name);
    want(`peer result ${reply}`, child.status === 'completed' && child.result === reply, [child.status, child.result ?? child.error]);
  } else want(`peer failure ${expected.peerFailure}`, child.status === 'failed' && !!child.error?.includes(expected.peerFailure), [child.status, child.error]);
  const receipt = receiptsOf.get(child.id)?.[0];
  want('a completed receipt back in the asking member conversation', receipt?.status === 'completed' && receipt.conversation_id === planned.member.conversationId, [receipt?.status, receipt?.conversation_id]);
}
