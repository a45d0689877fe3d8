import 'server-only';
import { LIMITS } from '@/lib/limits';
import { indexedBy } from '@/server/db/dialect';
import { statement } from '@/server/db/statement';
import { AppError } from '@/server/http/errors';
import { cachedDayUsage, rememberDayUsage, usageGeneration } from './usage-cache';

/**
 * The operator's daily token cap per account (DAILY_TOKEN_CAP_PER_ACCOUNT; 0 = none): an account's tokens today are
 * the recorded totals of its runs created since UTC midnight, team runs and delegated children included. At the cap
 * new conversation runs are refused and the account's queued team work is held until the next UTC midnight.
 * Every function takes the clock and the cap, so the day's edges are tested without waiting for them.
 */
export type CapOptions = { now?: number; cap?: number };

const DAY_MS = 86_400_000;

/** The start of the UTC day holding `now`. */
export const utcDayStart = (now: number) => Math.floor(now / DAY_MS) * DAY_MS;
/** The next UTC midnight after `now`: when the day's usage starts again from 0. */
export const nextUtcMidnight = (now: number) => utcDayStart(now) + DAY_MS;

const dayUsage = statement(
  `select coalesce(sum(input_tokens + output_tokens), 0) as n from runs${indexedBy('runs_owner_created_idx')}
    where owner_id = ? and created_at >= ? and created_at < ?`,
);

/**
 * The account's tokens in the UTC day holding `now`. Like every function here it reads through the open
 * transaction when called inside one (writeTx, readTx), committed rows otherwise.
 */
export async function accountTokensToday(ownerId: string, now = Date.now()): Promise<number> {
  const day = utcDayStart(now);
  const known = cachedDayUsage(ownerId, day);
  if (known !== undefined) return known;
  const generation = usageGeneration();
  const row = await dayUsage.get<{ n: number }>(ownerId, new Date(day), new Date(nextUtcMidnight(now)));
  const used = Number(row?.n ?? 0);
  rememberDayUsage(ownerId, day, used, generation);
  return used;
}

/** 429 with Retry-After until the next UTC midnight. */
export class DailyTokenCapError extends AppError {
  constructor(used: number, cap: number, now: number) {
    const seconds = Math.max(1, Math.ceil((nextUtcMidnight(now) - now) / 1000));
    super(
      429,
      'daily_token_cap',
      `Your account has used its daily token allowance (${used.toLocaleString('en-US')} of ${cap.toLocaleString('en-US')} tokens today). It resets at midnight UTC, in ${untilText(seconds)}.`,
      undefined,
      { 'Retry-After': String(seconds) },
    );
    this.name = 'DailyTokenCapError';
  }
}

/** Throw DailyTokenCapError when a cap is set and the account's usage today has reached it. */
export async function assertDailyCap(ownerId: string, options: CapOptions = {}): Promise<void> {
  const cap = options.cap ?? LIMITS.budget.dailyPerAccount;
  if (cap <= 0) return;
  const now = options.now ?? Date.now();
  const used = await accountTokensToday(ownerId, now);
  if (used >= cap) throw new DailyTokenCapError(used, cap, now);
}

/** Whether the account is at its daily cap now (false when no cap is set). */
export async function atDailyCap(ownerId: string, options: CapOptions = {}): Promise<boolean> {
  const cap = options.cap ?? LIMITS.budget.dailyPerAccount;
  return cap > 0 && (await accountTokensToday(ownerId, options.now ?? Date.now())) >= cap;
}

/** Of these accounts, those at their daily cap now: their queued team work is held. */
export async function ownersAtDailyCap(ownerIds: Iterable<string>, options: CapOptions = {}): Promise<Set<string>> {
  const cap = options.cap ?? LIMITS.budget.dailyPerAccount;
  const held = new Set<string>();
  if (cap <= 0) return held;
  for (const ownerId of ownerIds) if (await atDailyCap(ownerId, { ...options, cap })) held.add(ownerId);
  return held;
}

function untilText(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  const hours = Math.floor(minutes / 60);
  return hours ? `${hours} h ${minutes % 60} min` : `${minutes} min`;
}
