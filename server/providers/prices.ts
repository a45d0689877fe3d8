import 'server-only';
import { asc, eq } from 'drizzle-orm';
import { costNanos, microsToUsd, type PriceMicros } from '@/lib/money';
import type { ModelPriceView, SetModelPriceData } from '@/lib/schemas/prices';
import type { TokenTotals } from '@/lib/types/run-events';
import { getDb, schema, writeTx } from '@/server/db';
import { statement } from '@/server/db/statement';

/**
 * Model prices (ADR 048): per model string (`scripted`, `openai:gpt-4.1-mini`, `slug:model` — the provider and the
 * model), dollars per million input and output tokens in micro-dollars, null = unknown. Only an admin changes them
 * (the caller checked); a run reads its model's price once, when it finishes, and keeps the cost it computed, so
 * a later price change moves only future runs' costs. A provider's removal leaves its prices (they apply again
 * if a provider of that slug comes back).
 */

type PriceRow = typeof schema.modelPrices.$inferSelect;

function toView(row: PriceRow): ModelPriceView {
  return {
    model: row.model,
    inputPerMillion: row.inputMicrosPerMillion === null ? null : microsToUsd(row.inputMicrosPerMillion),
    outputPerMillion: row.outputMicrosPerMillion === null ? null : microsToUsd(row.outputMicrosPerMillion),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export async function listPrices(): Promise<ModelPriceView[]> {
  const rows = await getDb().select().from(schema.modelPrices).orderBy(asc(schema.modelPrices.model));
  return rows.map(toView);
}

/**
 * Set a model's prices; both unknown removes its row (there is nothing left to say about it) and answers null.
 * An upsert by primary key: safe to run twice (a Postgres serializable retry re-runs it).
 */
export async function setPrice(input: SetModelPriceData): Promise<ModelPriceView | null> {
  const { model, inputPerMillion, outputPerMillion } = input;
  return writeTx(async (tx) => {
    if (inputPerMillion === null && outputPerMillion === null) {
      await tx.delete(schema.modelPrices).where(eq(schema.modelPrices.model, model));
      return null;
    }
    const values = { inputMicrosPerMillion: inputPerMillion, outputMicrosPerMillion: outputPerMillion, updatedAt: new Date() };
    const [row] = await tx
      .insert(schema.modelPrices)
      .values({ model, ...values })
      .onConflictDoUpdate({ target: schema.modelPrices.model, set: values })
      .returning();
    return toView(row!);
  });
}

// Read at every run's end: a statement prepared once per connection, not SQL built per call (docs/performance.md).
const priceRow = statement(
  'select input_micros_per_million as "input", output_micros_per_million as "output" from model_prices where model = ?',
);
const whole = (v: number | string | null) => (v === null ? null : Number(v));

/** The model's prices now, or null when none is set (every cost at it is unknown). */
export async function priceOf(model: string): Promise<PriceMicros | null> {
  const row = await priceRow.get<{ input: number | string | null; output: number | string | null }>(model);
  return row ? { inputMicrosPerMillion: whole(row.input), outputMicrosPerMillion: whole(row.output) } : null;
}

/**
 * What a run cost, in nano-dollars, from its token totals and its model's price: null (unknown) when a call
 * reported no usage (its tokens are not known, so neither is their cost) or a price it needs is unknown. A run
 * with no model calls cost nothing. Pure: the caller read the price.
 */
export function runCostNanos(totals: TokenTotals, price: PriceMicros | null): number | null {
  if (totals.modelCalls === 0) return 0;
  if (totals.unreportedCalls > 0) return null;
  return costNanos({ input: totals.inputTokens, output: totals.outputTokens }, price);
}
