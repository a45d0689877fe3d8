import 'server-only';
import type { ConversationActivity, ConversationListItem } from '@/lib/types/conversation';
import { tieBreakText } from '@/server/db/dialect';
import { statement } from '@/server/db/statement';
import { listConversations, memberTeams } from './conversations';
import { conversationView } from './views';

/**
 * The owner's conversations as GET /api/v1/conversations and the Conversations page list them: each with what its
 * newest run is doing, so a busy chat or one waiting for the person shows without opening it.
 */
export async function listConversationItems(ownerId: string): Promise<ConversationListItem[]> {
  const [rows, activity, teams] = await Promise.all([listConversations(ownerId), conversationActivity(ownerId), memberTeams(ownerId)]);
  return rows.map((row) => ({ ...conversationView(row), activity: activity.get(row.id) ?? null, team: teams.get(row.id) ?? null }));
}

/**
 * Each owner's conversation whose newest run (framework notes aside) is unfinished: running (or about to) is
 * 'working'; stopped on an approval or a question is 'waiting_for_you'. The newest only: an answered interrupt stays
 * 'interrupted' on its run, with the run that answered it after it (and a team request's run counts only while the
 * request still waits: its cancel ends the wait, team-request-wait.ts endCancelledWait). Read from the owner's unfinished runs, each checked
 * for a newer one by the conversation's (conversation_id, created_at) index.
 */
const unfinishedNewestRuns = statement(
  `select r.conversation_id as "conversationId", r.status as "status" from runs r
   where r.owner_id = ? and r.kind <> 'note' and r.status in ('pending', 'running', 'interrupted')
     and (r.status <> 'interrupted' or r.team_id is null or exists (select 1 from jobs j where j.run_id = r.id and j.status = 'waiting_input'))
     and not exists (select 1 from runs n where n.conversation_id = r.conversation_id and n.kind <> 'note'
       and (n.created_at > r.created_at or (n.created_at = r.created_at and n.${tieBreakText('id')} > r.${tieBreakText('id')})))`,
);

async function conversationActivity(ownerId: string): Promise<Map<string, ConversationActivity>> {
  const rows = await unfinishedNewestRuns.all<{ conversationId: string; status: string }>(ownerId);
  return new Map(rows.map((r) => [r.conversationId, r.status === 'interrupted' ? 'waiting_for_you' : 'working']));
}
