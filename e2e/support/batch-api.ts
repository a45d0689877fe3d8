import { expect, type APIRequestContext } from '@playwright/test';

/** A batch and its items as the HTTP API answers them (docs/api.md, Batches): what the batch specs read back. */
export type BatchCounts = Record<'queued' | 'running' | 'waiting' | 'done' | 'failed' | 'cancelled', number>;
export type Batch = { id: string; status: string; counts: BatchCounts };
export type BatchItem = { id: string; index: number; status: string; attempts: number; input: Record<string, string>; result: string | null; runId: string | null };

/** POST /api/v1/batches, expecting it stored (201). */
export async function startBatch(api: APIRequestContext, body: Record<string, unknown>): Promise<Batch> {
  const res = await api.post('/api/v1/batches', { data: body });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { batch: Batch }).batch;
}

export async function readBatch(api: APIRequestContext, id: string): Promise<Batch> {
  const res = await api.get(`/api/v1/batches/${id}`);
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as { batch: Batch }).batch;
}

/** Every item of a batch of at most 200 (one page). */
export async function readItems(api: APIRequestContext, id: string): Promise<BatchItem[]> {
  const res = await api.get(`/api/v1/batches/${id}/items?limit=200`);
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as { items: BatchItem[] }).items;
}
