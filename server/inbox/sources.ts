import 'server-only';
import { tieBreakText } from '@/server/db/dialect';
import { INTERRUPTED_CHAT_RUN_PREDICATE, WAITING_BATCH_ITEM_PREDICATE, WAITING_JOB_PREDICATE } from '@/server/db/sqlite-schema';

/**
 * The places something waits for the person (ADR 056), each one SELECT giving the same columns, so the inbox is
 * their UNION ALL and a new source (batch items) is one more entry. Every source reads the owner's waiting rows
 * through its own partial index (predicates spelled once, in the schema): never the owner's other runs or jobs.
 *
 * Columns: source, id (run, job or batch item), since (when it started waiting), conversationId, payload (the run's
 * interrupt or the job's waiting, JSON), agentName, title (chat), teamId, teamName, memberId, memberName (team),
 * batchId, itemIndex, itemInput (batch; typed nulls elsewhere, so Postgres matches the union's column types).
 * One `?` each: the owner's id.
 */

/** The batch columns of the sources that are not batch items. */
const NO_BATCH = `cast(null as text) as "batchId", cast(null as integer) as "itemIndex", cast(null as text) as "itemInput"`;
export type InboxSourceSql = { source: string; sql: string };

/**
 * The person's own chats stopped on an approval or a question: an interrupted run that is still its conversation's
 * newest (framework notes aside); an answered one stays 'interrupted' with the run that answered it after it. Team
 * jobs' runs are the team source's, and a batch item's run (its conversation hidden: parent_run_id names the batch)
 * is the batch source's; a delegated child never waits (its ask and approval tools are removed, ADR 024), and if it
 * stopped anyway its parent was told it failed, so there is nothing to answer.
 */
const chats: InboxSourceSql = {
  source: 'chat',
  sql: `select 'chat' as "source", r.id as "id", coalesce(r.finished_at, r.created_at) as "since", r.conversation_id as "conversationId",
      r.interrupt as "payload", c.agent_name as "agentName", c.title as "title", null as "teamId", null as "teamName",
      null as "memberId", null as "memberName", ${NO_BATCH}
    from (select id, conversation_id, finished_at, created_at, interrupt${tieBreakText('id') === 'id' ? '' : ', rowid'} from runs
          where owner_id = ? and ${INTERRUPTED_CHAT_RUN_PREDICATE}) r
    join conversations c on c.id = r.conversation_id and c.parent_run_id is null
    where not exists (select 1 from runs n where n.conversation_id = r.conversation_id and n.kind <> 'note'
      and (n.created_at > r.created_at or (n.created_at = r.created_at and n.${tieBreakText('id')} > r.${tieBreakText('id')})))`,
};

/**
 * A team member's request stopped on a question or an approval, answered on the team's page (or here). A job with no
 * member is a result returned to the person's ordinary chat that @mentioned the team, stopped in that chat's agent's
 * reply: agentName names that agent (no member of the team asks).
 */
const teamJobs: InboxSourceSql = {
  source: 'team',
  sql: `select 'team' as "source", j.id as "id", j.updated_at as "since", j.conversation_id as "conversationId",
      j.waiting as "payload", c.agent_name as "agentName", null as "title", j.team_id as "teamId", t.name as "teamName",
      j.member_id as "memberId", m.name as "memberName", ${NO_BATCH}
    from (select id, team_id, member_id, conversation_id, updated_at, waiting from jobs
          where owner_id = ? and ${WAITING_JOB_PREDICATE}) j
    join teams t on t.id = j.team_id
    left join team_members m on m.id = j.member_id
    left join conversations c on c.id = j.conversation_id and j.member_id is null`,
};

/**
 * A batch item whose run stopped on a question or an approval (ADR 059): the question is its run's interrupt, its
 * context the batch's target and the item's index and fields. Answered here, through the API or on the batch's page.
 */
const batchItems: InboxSourceSql = {
  source: 'batch',
  sql: `select 'batch' as "source", i.id as "id", i.waiting_since as "since", i.conversation_id as "conversationId",
      r.interrupt as "payload", b.target_name as "agentName", null as "title", b.team_id as "teamId", t.name as "teamName",
      b.member_id as "memberId", null as "memberName", i.batch_id as "batchId", i.idx as "itemIndex", cast(i.input as text) as "itemInput"
    from (select id, batch_id, idx, input, conversation_id, run_id, waiting_since from batch_items
          where owner_id = ? and ${WAITING_BATCH_ITEM_PREDICATE}) i
    join batches b on b.id = i.batch_id
    join runs r on r.id = i.run_id
    left join teams t on t.id = b.team_id`,
};

/** Every source; the inbox orders by (since, source, id), so this order is only the union's. */
export const INBOX_SOURCES: readonly InboxSourceSql[] = [chats, teamJobs, batchItems];
