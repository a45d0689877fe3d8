import 'server-only';
import { LIMITS } from '@/lib/limits';
import type { Db } from '@/server/db';
import { schema } from '@/server/db';
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

// Once or twice per job: compiled once per connection (server/db/statement.ts).
const pruneRetained = statement(
  `delete from shared_messages where team_id = ? and seq <= (
     select seq from shared_messages where team_id = ? order by seq desc limit 1 offset ?)`,
);

/** Append to the team's shared record (inside the open writeTx `tx`) and drop what falls beyond the retained bound (oldest first). */
export async function appendShared(tx: Db, entry: Entry): Promise<void> {
  await tx.insert(schema.sharedMessages).values(entry);
  await pruneRetained.run(entry.teamId, entry.teamId, LIMITS.sharedRecord.retained);
}
