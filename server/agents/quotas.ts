import 'server-only';
import { LIMITS } from '@/lib/limits';
import type { Db } from '@/server/db';
import { statement } from '@/server/db/statement';
import { AppError } from '@/server/http/errors';

/**
 * Per-account quotas on what an account keeps: agents and conversations. Each check runs inside the writeTx
 * that inserts the rows (serializable on both engines), so two concurrent creates can't both pass at the limit.
 */

const agentCount = statement('select count(*) as n from agents where owner_id = ?');
const conversationCount = statement(
  `select (select count(*) from conversations where owner_id = ?)
        + (select count(*) from team_members m join teams t on t.id = m.team_id
            where t.owner_id = ? and m.conversation_id is null) as n`,
);

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

/** Conversations the account holds or has admitted (hidden child conversations included). */
export async function conversationsHeld(ownerId: string): Promise<number> {
  return Number((await conversationCount.get<{ n: number | string }>(ownerId, ownerId))!.n);
}

/** 409 'agent_limit' when the owner already has the maximum number of agents (counted in tx, the open writeTx). */
export async function assertAgentQuota(_tx: Db, ownerId: string): Promise<void> {
  const limit = quotas().agentsPerAccount;
  const { n } = (await agentCount.get<{ n: number }>(ownerId))!;
  if (n + 1 > limit) throw new AppError(409, 'agent_limit', `Agent limit reached (${limit}); delete an agent you no longer need first`);
}

/**
 * 409 'conversation_limit' when `adding` more conversations would pass the owner's maximum. Member conversations
 * a team still has to create (members without one) are counted as taken: they were admitted with the team. A
 * delegated child's hidden conversation counts like any other: it is stored for the account all the same.
 */
export async function assertConversationQuota(_tx: Db, ownerId: string, adding = 1): Promise<void> {
  const limit = quotas().conversationsPerAccount;
  const n = await conversationsHeld(ownerId);
  if (n + adding > limit) {
    const what = adding === 1 ? 'a conversation' : `${adding} member conversations`;
    throw new AppError(409, 'conversation_limit', `Conversation limit reached (${limit}); this would add ${what} to your ${n}`);
  }
}
