import 'server-only';
import type { ApiRunReceipts } from '@/lib/types/receipts';
import { get } from '../runs';
import { receiptsOf } from './ledger';

/** GET /api/v1/runs/:id/receipts: the owner's run (404 otherwise, like a missing id) and its receipts ledger. */
export function runReceipts(ownerId: string, runId: string): ApiRunReceipts {
  const run = get(ownerId, runId);
  return { runId: run.id, receipts: receiptsOf(run.id) };
}
