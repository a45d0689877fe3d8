import { callerConversation, type ConversationRouteCtx as Ctx } from '@/server/agents/conversation-route';
import { bridgeChildChanges } from '@/server/agents/delegation/announce-children';
import { runEvents } from '@/server/agents/run-events';
import { requireUser } from '@/server/auth/require-user';
import { stillSignedIn } from '@/server/auth/still-signed-in';
import { otherMethods } from '@/server/http/method-not-allowed';
import { route } from '@/server/http/route';
import { bridgeRunEvents } from '@/server/push/conversation-changes';
import { conversationEventStream } from '@/server/push/conversation-stream';
import { parseLastEventId } from '@/server/push/event-stream';
import { refuseQuery } from '@/server/http/query';

export const dynamic = 'force-dynamic';

/** Live updates for one conversation (text/event-stream): see docs/api.md "Event streams". */
export const GET = route(async (req, ctx: Ctx) => {
  const { user, id } = await callerConversation(req, ctx);
  refuseQuery(req);
  bridgeRunEvents(runEvents());
  bridgeChildChanges();
  return conversationEventStream({
    accountId: user.id,
    conversationId: id,
    lastEventId: parseLastEventId(req),
    signal: req.signal,
    request: req,
    signedIn: stillSignedIn(req, user.id),
  });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
