import { requireUser } from '@/server/auth/require-user';
import { stillSignedIn } from '@/server/auth/still-signed-in';
import { bridgeChildChanges } from '@/server/agents/delegation/announce-children';
import { readRunHead } from '@/server/agents/observe/run-head';
import { runEvents } from '@/server/agents/run-events';
import { get } from '@/server/agents/runs';
import { otherMethods } from '@/server/http/method-not-allowed';
import { route } from '@/server/http/route';
import { bridgeRunEvents } from '@/server/push/conversation-changes';
import { runEventStream } from '@/server/push/run-stream';
import { refuseQuery } from '@/server/http/query';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

/** Live updates for one run's Steps panel (text/event-stream): see docs/api.md "Event streams". */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  refuseQuery(req);
  const { id } = await ctx.params;
  // Another owner's run is a 404 exactly like a missing one, before any stream slot is taken.
  const run = await get(user.id, id);
  bridgeRunEvents(runEvents());
  bridgeChildChanges();
  return runEventStream({
    accountId: user.id,
    runId: run.id,
    conversationId: run.conversationId,
    readHead: () => readRunHead(run.id),
    signal: req.signal,
    request: req,
    signedIn: stillSignedIn(req, user.id),
  });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
