import { requireUser } from '@/server/auth/require-user';
import { runReceipts } from '@/server/agents/receipts/run-receipts';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { refuseQuery } from '@/server/http/query';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

/** GET /api/v1/runs/:id/receipts — the run's receipts ledger (r1, r2, … with tool and status; docs/api.md). */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  refuseQuery(req);
  const { id } = await ctx.params;
  return json(await runReceipts(user.id, id), { headers: { 'cache-control': 'no-store' } });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
