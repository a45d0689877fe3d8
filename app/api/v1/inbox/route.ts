import { inboxQuerySchema } from '@/lib/schemas/inbox';
import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { parseOrThrow } from '@/server/http/validation';
import { readInbox } from '@/server/inbox/read';

export const dynamic = 'force-dynamic';

/** What waits for the caller, oldest first, paged: see docs/api.md "Inbox". */
export const GET = route(async (req) => {
  const user = await requireUser(req);
  const query = parseOrThrow(inboxQuerySchema, Object.fromEntries(new URL(req.url).searchParams));
  return json(await readInbox(user.id, query), { headers: { 'cache-control': 'no-store' } });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
