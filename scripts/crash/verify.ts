/**
 * The crash test's verdict, read from the databases after the server stopped: nothing acknowledged was lost,
 * nothing ran twice, every handoff has exactly one receipt, nothing is stuck, every outcome is the scripted one.
 * It reads the SQLite files of the stopped server with a driver of its own, independently of server/db (the crash
 * test runs the SQLite deployment), hence the SQLite-only calls the lint rule keeps out of app code.
 */
/* eslint-disable no-restricted-syntax -- an independent reader of the SQLite files (see above), not app code */
import path from 'node:path';
import Database from 'better-sqlite3';
import type { BaseMessage } from '@langchain/core/messages';
import { JsonPlusSerializer } from '@langchain/langgraph-checkpoint';
import { expected, type Ack, type PlannedRequest } from './workload';

type JobRow = {
  id: string;
  text: string;
  team_id: string;
  kind: 'request' | 'receipt';
  member_id: string | null;
  conversation_id: string;
  source_member_id: string | null;
  parent_id: string | null;
  status: string;
  request_key: string;
  run_key: string | null;
  run_id: string | null;
  answer_key: string | null;
  result: string | null;
  error: string | null;
  created_at: number;
  admitted_at: number | null;
  completed_at: number | null;
};
type RunRow = { id: string; conversation_id: string; idempotency_key: string; status: string; kind: string; created_at: number; finished_at: number | null };

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

/** Open a database read-only; a WAL file left by a killed server needs a writable handle to be replayed. */
function openReadOnly(file: string): Database.Database {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    db.prepare('select 1').get();
    return db;
  } catch {
    const db = new Database(file, { fileMustExist: true });
    db.pragma('query_only = ON');
    return db;
  }
}

/**
 * A thread's newest messages, read straight from the storage format of ADR 013 (the newest checkpoint lists
 * message positions; each message is one row), independently of the server's saver.
 */
async function latestMessages(checkpoints: Database.Database, threadId: string): Promise<BaseMessage[]> {
  const row = checkpoints
    .prepare(`SELECT messages FROM thread_checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`)
    .get(threadId) as { messages: string | null } | undefined;
  if (!row?.messages) return [];
  const serde = new JsonPlusSerializer();
  const read = checkpoints.prepare(`SELECT type, value FROM thread_messages WHERE thread_id = ? AND checkpoint_ns = '' AND position = ?`);
  const out: BaseMessage[] = [];
  for (const [first, last] of JSON.parse(row.messages) as Array<[number, number]>) {
    for (let p = first; p <= last; p++) {
      const m = read.get(threadId, p) as { type: string; value: Buffer } | undefined;
      if (!m) throw new Error(`thread ${threadId}: message position ${p} is listed but not stored`);
      out.push((await serde.loadsTyped(m.type, m.value)) as BaseMessage);
    }
  }
  return out;
}

type Meta = { jobId?: string; kind?: string };
const metaOf = (m: BaseMessage) => (m.additional_kwargs?.ensemble ?? {}) as Meta;

export type Restart = { killedAt: number; spawnedAt: number };

export async function verify(dataDir: string, plan: PlannedRequest[], acks: Map<number, Ack>, answers: Map<string, string>, restarts: Restart[]): Promise<Verdict> {
  const db = openReadOnly(path.join(dataDir, 'ensemble.db'));
  const checkpoints = new Database(path.join(dataDir, 'checkpoints.db'), { fileMustExist: true });
  try {
    const jobs = db.prepare('select * from jobs order by seq').all() as JobRow[];
    const runs = db.prepare('select id, conversation_id, idempotency_key, status, kind, created_at, finished_at from runs').all() as RunRow[];
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
      if (!threads.has(conversationId)) threads.set(conversationId, await latestMessages(checkpoints, conversationId));
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
    const stray = runs.filter((r) => !r.idempotency_key.startsWith('job:'));
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
  } finally {
    db.close();
    checkpoints.close();
  }
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
