import 'server-only';
import { LIMITS } from '@/lib/limits';
import type { Db } from '@/server/db';
import { AppError } from '@/server/http/errors';

/**
 * Per-account quotas on what an account keeps: agents and conversations. Each check runs inside the writeTx
 * (BEGIN IMMEDIATE) that inserts the rows, so two concurrent creates can't both pass at the limit.
 */

export type Quotas = { agentsPerAccount: number; conversationsPerAccount: number };

// Process-wide, so every copy of this module (route bundles, tests) sees the same override.
const g = globalThis as unknown as { __ensembleQuotaOverride?: Partial<Quotas> };

/** The quotas in force: LIMITS.quotas (env-configurable), unless a test set smaller ones. */
export function quotas(): Quotas {
  return { ...LIMITS.quotas, ...g.__ensembleQuotaOverride };
}

/** Tests only: use these quotas instead of LIMITS.quotas until called again without an argument. */
export function overrideQuotasForTests(override?: Partial<Quotas>): void {
  g.__ensembleQuotaOverride = override;
}

/** 409 'agent_limit' when the owner already has the maximum number of agents. */
export function assertAgentQuota(tx: Db, ownerId: string): void {
  const limit = quotas().agentsPerAccount;
  const { n } = tx.$client.prepare('select count(*) as n from agents where owner_id = ?').get(ownerId) as { n: number };
  if (n + 1 > limit) throw new AppError(409, 'agent_limit', `Agent limit reached (${limit}); delete an agent you no longer need first`);
}

/**
 * 409 'conversation_limit' when `adding` more conversations would pass the owner's maximum. Member conversations
 * a team still has to create (members without one) are counted as taken: they were admitted with the team.
 */
export function assertConversationQuota(tx: Db, ownerId: string, adding = 1): void {
  const limit = quotas().conversationsPerAccount;
  const { n } = tx.$client
    .prepare(
      `select (select count(*) from conversations where owner_id = ? and parent_run_id is null)
            + (select count(*) from team_members m join teams t on t.id = m.team_id
                where t.owner_id = ? and m.conversation_id is null) as n`,
    )
    .get(ownerId, ownerId) as { n: number };
  if (n + adding > limit) {
    const what = adding === 1 ? 'a conversation' : `${adding} member conversations`;
    throw new AppError(409, 'conversation_limit', `Conversation limit reached (${limit}); this would add ${what} to your ${n}`);
  }
}
