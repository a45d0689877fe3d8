import { requireUser } from '@/server/auth/require-user';
import { stillSignedIn } from '@/server/auth/still-signed-in';
import { otherMethods } from '@/server/http/method-not-allowed';
import { route } from '@/server/http/route';
import { inboxEventStream } from '@/server/inbox/stream';
import { refuseQuery } from '@/server/http/query';

export const dynamic = 'force-dynamic';

/** Live updates for the caller's inbox (text/event-stream): see docs/api.md "Event streams". */
export const GET = route(async (req) => {
  const user = await requireUser(req);
  refuseQuery(req);
  return inboxEventStream({ accountId: user.id, signal: req.signal, request: req, signedIn: stillSignedIn(req, user.id) });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
