import 'server-only';
import type { ActionResult } from '@/lib/action-result';
import { AppError } from './errors';

/**
 * Run a server action's body: its value becomes `{ ok: true, data }`, an AppError the error body the JSON API
 * would send (`{ ok: false, error: { code, message, fields? } }`); anything else is a crash and is rethrown.
 */
export async function toActionResult<T>(body: () => T | Promise<T>): Promise<ActionResult<T>> {
  try {
    return { ok: true, data: await body() };
  } catch (err) {
    if (err instanceof AppError) return { ok: false, error: err.toBody().error };
    throw err;
  }
}
