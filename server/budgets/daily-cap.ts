import 'server-only';
import { LIMITS } from '@/lib/limits';
import type { Db } from '@/server/db';
import { AppError } from '@/server/http/errors';
import { cachedDayUsage, rememberDayUsage } from './usage-cache';

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

/** The account's tokens in the UTC day holding `now`. */
export function accountTokensToday(db: Db, ownerId: string, now = Date.now()): number {
  const day = utcDayStart(now);
  const known = cachedDayUsage(ownerId, day);
  if (known !== undefined) return known;
  const row = db.$client
    .prepare(
      `select coalesce(sum(input_tokens + output_tokens), 0) as n from runs indexed by runs_owner_created_idx
        where owner_id = ? and created_at >= ? and created_at < ?`,
    )
    .get(ownerId, day, nextUtcMidnight(now)) as { n: number };
  rememberDayUsage(ownerId, day, row.n);
  return row.n;
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
export function assertDailyCap(db: Db, ownerId: string, options: CapOptions = {}): void {
  const cap = options.cap ?? LIMITS.budget.dailyPerAccount;
  if (cap <= 0) return;
  const now = options.now ?? Date.now();
  const used = accountTokensToday(db, ownerId, now);
  if (used >= cap) throw new DailyTokenCapError(used, cap, now);
}

/** Whether the account is at its daily cap now (false when no cap is set). */
export function atDailyCap(db: Db, ownerId: string, options: CapOptions = {}): boolean {
  const cap = options.cap ?? LIMITS.budget.dailyPerAccount;
  return cap > 0 && accountTokensToday(db, ownerId, options.now ?? Date.now()) >= cap;
}

/** Of these accounts, those at their daily cap now: their queued team work is held. */
export function ownersAtDailyCap(db: Db, ownerIds: Iterable<string>, options: CapOptions = {}): Set<string> {
  const cap = options.cap ?? LIMITS.budget.dailyPerAccount;
  const held = new Set<string>();
  if (cap <= 0) return held;
  for (const ownerId of ownerIds) if (atDailyCap(db, ownerId, { ...options, cap })) held.add(ownerId);
  return held;
}

function untilText(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  const hours = Math.floor(minutes / 60);
  return hours ? `${hours} h ${minutes % 60} min` : `${minutes} min`;
}
