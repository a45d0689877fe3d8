import 'server-only';
import { writeJournalPg } from './journal-write';
import type { PgCheckpointSide } from './pg-saver';
import { createSideTables, deleteSideRows } from './side-tables';
import { hasJournal, takeJournal } from './step-journal';

/** The app's checkpoint-side tables and step journal, as the Postgres saver sees them (pg-saver.ts). */
export const pgCheckpointSide: PgCheckpointSide = {
  setup: (client) => createSideTables(client),
  deleteThread: (client, threadId) => deleteSideRows(client, threadId),
  pending: hasJournal,
  write: (client, threadId, saver) => writeJournalPg(client, takeJournal(threadId), saver, saver.schema),
};
