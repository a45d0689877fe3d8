import { createConversationSchema } from '@/lib/schemas/conversation';
import { requireUser } from '@/server/auth/require-user';
import { listConversationItems } from '@/server/agents/conversation-list';
import { createConversation } from '@/server/agents/conversations';
import { conversationView } from '@/server/agents/views';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { refuseQuery } from '@/server/http/query';

/** GET /api/v1/conversations — the caller's conversations, most recently active first. */
export const GET = route(async (req) => {
  const user = await requireUser(req);
  refuseQuery(req);
  return json({ conversations: await listConversationItems(user.id) });
});

/** POST /api/v1/conversations { agentId } — a new conversation with one of the caller's agents. */
export const POST = route(async (req) => {
  const user = await requireUser(req);
  const { agentId } = await readBody(req, createConversationSchema);
  return json(conversationView(await createConversation(user.id, agentId)), { status: 201 });
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST }, requireUser);
