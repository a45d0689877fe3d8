import 'server-only';
import { count, inArray, sql, sum } from 'drizzle-orm';
import { nanosToUsd } from '@/lib/money';
import type { AccountUsage } from '@/lib/schemas/admin';
import { getDb, schema } from '@/server/db';

const ZERO: AccountUsage = { runs: 0, modelTokens: 0, cost: '0.00', unknownCostRuns: 0, activeJobs: 0, agents: 0, conversations: 0 };

/**
 * What each account uses, from the rows themselves: runs (conversation runs and team steps; not framework
 * notes), model tokens (input + output of those runs), their cost (known and unknown apart), team jobs not finished yet, agents and conversations.
 * One grouped query per table: the admin page lists every account at once.
 */
export async function usageByAccount(): Promise<Map<string, AccountUsage>> {
  const usage = new Map<string, AccountUsage>();
  const at = (ownerId: string) => {
    let entry = usage.get(ownerId);
    if (!entry) usage.set(ownerId, (entry = { ...ZERO }));
    return entry;
  };
  // Separate reads, not one snapshot: a row written in between moves one figure of a page that is a glance.
  const db = getDb();
  const r = schema.runs;
  for (const row of await db
    .select({
      ownerId: r.ownerId,
      runs: count(),
      tokens: sum(sql`${r.inputTokens} + ${r.outputTokens}`),
      // Known costs summed in nano-dollars; a finished run of unknown cost is counted apart (ADR 048).
      costNanos: sum(r.costNanos),
      unknownCost: sum(sql`case when ${r.costNanos} is null and ${r.status} not in ('pending', 'running') then 1 else 0 end`),
    })
    .from(r)
    // Framework notes appended to a thread are run rows too, but no model ran.
    .where(inArray(r.kind, ['start', 'resume']))
    .groupBy(r.ownerId)) {
    Object.assign(at(row.ownerId), {
      runs: row.runs,
      modelTokens: Number(row.tokens ?? 0),
      cost: nanosToUsd(Number(row.costNanos ?? 0)),
      unknownCostRuns: Number(row.unknownCost ?? 0),
    });
  }
  const j = schema.jobs;
  for (const row of await db
    .select({ ownerId: j.ownerId, n: count() })
    .from(j)
    .where(inArray(j.status, [...schema.UNFINISHED_JOB_STATUSES]))
    .groupBy(j.ownerId)) {
    at(row.ownerId).activeJobs = row.n;
  }
  const a = schema.agents;
  for (const row of await db.select({ ownerId: a.ownerId, n: count() }).from(a).groupBy(a.ownerId)) at(row.ownerId).agents = row.n;
  const c = schema.conversations;
  for (const row of await db.select({ ownerId: c.ownerId, n: count() }).from(c).groupBy(c.ownerId)) {
    at(row.ownerId).conversations = row.n;
  }
  return usage;
}

export const noUsage = (): AccountUsage => ({ ...ZERO });
