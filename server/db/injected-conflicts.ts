import 'server-only';
import { rawEnv } from '@/lib/env-setting';

/**
 * A test mode proving that every write transaction's body is safe to run twice (ADR 033 §3): with
 * ENSEMBLE_INJECT_SERIALIZATION_FAILURES=1, the Postgres engine answers the first attempt of every outermost `writeTx`
 * with a serialization failure (40001) after its body ran and before COMMIT, so the body runs again on a rolled-back
 * transaction, exactly as when another process's transaction conflicts with it. `npm run test:pg:conflicts` runs the
 * Postgres suites so. Read at each transaction: tests switch it on and off.
 */
export const injectingConflicts = (): boolean => rawEnv('ENSEMBLE_INJECT_SERIALIZATION_FAILURES') === '1';

/** What Postgres would throw: a driver error with SQLSTATE 40001 (errors.ts isRetryableConflict). */
export function injectedSerializationFailure(): Error {
  return Object.assign(new Error('could not serialize access due to read/write dependencies among transactions (injected: ENSEMBLE_INJECT_SERIALIZATION_FAILURES)'), {
    code: '40001',
  });
}
