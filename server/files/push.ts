import 'server-only';
import { afterCommit } from '@/server/db';
import { pushBus, type FileChange } from '@/server/push/bus';

/**
 * Announce a file change once the transaction that made it commits (never after a rollback): the team's or the
 * chat's stream sends `event: file`, and the Postgres bridge carries it to the other processes' streams.
 */
export function noteFileChange(change: FileChange): void {
  afterCommit(() => pushBus().emit('file', change));
}
