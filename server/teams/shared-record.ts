import 'server-only';
import { LIMITS } from '@/lib/limits';
import type { Db } from '@/server/db';
import { schema } from '@/server/db';

type Entry = {
  teamId: string;
  jobId: string | null;
  kind: 'request' | 'result' | 'error' | 'cancelled' | 'note';
  senderMemberId: string | null;
  senderLabel: string;
  recipientMemberId: string | null;
  text: string;
};

/** Append to the team's shared record and drop what falls beyond the retained bound (oldest first). */
export function appendShared(tx: Db, entry: Entry): void {
  tx.insert(schema.sharedMessages).values(entry).run();
  tx.$client
    .prepare(
      `delete from shared_messages where team_id = ? and seq <= (
         select seq from shared_messages where team_id = ? order by seq desc limit 1 offset ?)`,
    )
    .run(entry.teamId, entry.teamId, LIMITS.sharedRecord.retained);
}
