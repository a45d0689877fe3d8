import crypto from 'node:crypto';
import { schema, writeTx } from '@/server/db';
import { usageChanged } from '@/server/budgets/usage-cache';

/**
 * A finished run with recorded token totals, as finishRun leaves one (and tells server/budgets, as it does): how the tests put a team (or an account) at a
 * chosen usage without running the model thousands of times. `teamId` is what a team job's run (or a delegated
 * child of one) carries; `createdAt` places it in a UTC day; `costNanos` is its recorded cost (absent: unknown).
 */
export async function seedRun(opts: { ownerId: string; conversationId: string; tokens: number; teamId?: string | null; createdAt?: number; parentRunId?: string; costNanos?: number | null }) {
  const id = crypto.randomUUID();
  const input = Math.floor(opts.tokens / 2);
  await writeTx(async (tx) => {
    await tx
      .insert(schema.runs)
      .values({
        id,
        conversationId: opts.conversationId,
        ownerId: opts.ownerId,
        idempotencyKey: `seed:${id}`,
        kind: 'start',
        status: 'success',
        model: 'scripted',
        input: {},
        inputTokens: input,
        outputTokens: opts.tokens - input,
        teamId: opts.teamId ?? null,
        parentRunId: opts.parentRunId ?? null,
        depth: opts.parentRunId ? 1 : 0,
        // Its cost in nano-dollars as finishRun would price it (ADR 048); left out, unknown.
        costNanos: opts.costNanos ?? null,
        ...(opts.createdAt !== undefined ? { createdAt: new Date(opts.createdAt) } : {}),
      });
  });
  // What finishRun does after writing a run's totals: the memoized sums are read afresh.
  usageChanged({ teamId: opts.teamId ?? null, ownerId: opts.ownerId });
  return id;
}
