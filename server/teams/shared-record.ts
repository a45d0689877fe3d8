import 'server-only';
import { desc, eq, sql } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import type { Db } from '@/server/db';
import { schema } from '@/server/db';
import type { SharedMessage } from '@/server/db/schema';
import { preparedPerConnection } from '@/server/db/prepared';
import { statement } from '@/server/db/statement';

type Entry = {
  teamId: string;
  jobId: string | null;
  kind: 'request' | 'result' | 'error' | 'cancelled' | 'note';
  senderMemberId: string | null;
  senderLabel: string;
  recipientMemberId: string | null;
  text: string;
};

// Once or twice per job: built once per connection (server/db/prepared.ts, server/db/statement.ts).
const insertEntry = preparedPerConnection((db) =>
  db
    .insert(schema.sharedMessages)
    .values({
      teamId: sql.placeholder('teamId'),
      jobId: sql.placeholder('jobId'),
      kind: sql.placeholder('kind'),
      senderMemberId: sql.placeholder('senderMemberId'),
      senderLabel: sql.placeholder('senderLabel'),
      recipientMemberId: sql.placeholder('recipientMemberId'),
      text: sql.placeholder('text'),
    })
    .prepare(),
);
// Read at every admission, for the shared context (server/teams/context.ts).
const newestEntries = preparedPerConnection((db) =>
  db
    .select()
    .from(schema.sharedMessages)
    .where(eq(schema.sharedMessages.teamId, sql.placeholder('teamId')))
    .orderBy(desc(schema.sharedMessages.seq))
    .limit(LIMITS.sharedRecord.inContext)
    .prepare(),
);
const pruneRetained = statement(
  `delete from shared_messages where team_id = ? and seq <= (
     select seq from shared_messages where team_id = ? order by seq desc limit 1 offset ?)`,
);

/** Append to the team's shared record (inside the open writeTx `tx`) and drop what falls beyond the retained bound (oldest first). */
export async function appendShared(tx: Db, entry: Entry): Promise<void> {
  await insertEntry(tx).execute(entry);
  await pruneRetained.run(entry.teamId, entry.teamId, LIMITS.sharedRecord.retained);
}

/** The team's newest shared-record entries that a member's context carries, oldest first. */
export async function recentShared(teamId: string, db: Db): Promise<SharedMessage[]> {
  return (await newestEntries(db).execute({ teamId })).reverse();
}
