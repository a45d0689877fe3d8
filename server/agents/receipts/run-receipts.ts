import 'server-only';
import type { ApiRunReceipts } from '@/lib/types/receipts';
import { get } from '../runs';
import { receiptsOf } from './ledger';

/** GET /api/v1/runs/:id/receipts: the owner's run (404 otherwise, like a missing id) and its receipts ledger. */
export async function runReceipts(ownerId: string, runId: string): Promise<ApiRunReceipts> {
  const run = await get(ownerId, runId);
  return { runId: run.id, receipts: await receiptsOf(run.id) };
}
