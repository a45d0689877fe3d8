import 'server-only';
import type { InboxQuery } from '@/lib/schemas/inbox';
import type { InboxItem, InboxPage, InboxWhere } from '@/lib/types/inbox';
import type { ApiWaiting } from '@/lib/types/team';
import { statement } from '@/server/db/statement';
import { validationError } from '@/server/http/errors';
import { INBOX_SOURCES } from './sources';
import { waitingOf } from './waiting';

/**
 * The owner's inbox (GET /api/v1/inbox, the Inbox page, the nav's count; ADR 056): everything waiting for the person,
 * oldest first, one page at a time. The sources' union is ordered by (since, source, id), and a page goes on after
 * the previous one's last item (keyset), so an item answered meanwhile never shifts the next page.
 */
type Row = {
  source: 'chat' | 'team' | 'batch';
  id: string;
  since: number | Date;
  conversationId: string;
  payload: unknown;
  agentName: string | null;
  title: string | null;
  teamId: string | null;
  teamName: string | null;
  memberId: string | null;
  memberName: string | null;
  batchId: string | null;
  itemIndex: number | string | null;
  itemInput: string | null;
};

const union = INBOX_SOURCES.map((s) => s.sql).join('\nunion all\n');
const ownerParams = (ownerId: string) => INBOX_SOURCES.map(() => ownerId);

const firstPage = statement(`select * from (${union}) w order by w."since", w."source", w."id" limit ?`);
const laterPage = statement(
  `select * from (${union}) w
   where w."since" > ? or (w."since" = ? and (w."source" > ? or (w."source" = ? and w."id" > ?)))
   order by w."since", w."source", w."id" limit ?`,
);
const countAll = statement(`select count(*) as "n" from (${union}) w`);

type Cursor = { since: Date; source: string; id: string };

/** `<since ms>.<source>.<id>`: opaque to clients, checked here (a forged one only moves the page, never the owner). */
const encodeCursor = (item: Row): string => `${toDate(item.since).getTime()}.${item.source}.${item.id}`;

function decodeCursor(after: string): Cursor {
  const match = /^(\d{1,16})\.(batch|chat|team)\.([^\s.][^\s]*)$/.exec(after);
  if (!match) throw validationError({ after: 'Must be a nextCursor from an earlier page' });
  return { since: new Date(Number(match[1])), source: match[2]!, id: match[3]! };
}

const toDate = (v: number | Date): Date => (v instanceof Date ? v : new Date(Number(v)));
const parsed = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return null;
  }
};
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);


/** A batch item's fields as stored (a JSON object of strings); anything else reads as none. */
function itemFields(text: string | null): Record<string, string> {
  const value = parsed(text);
  if (!isRecord(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

function toItem(row: Row): InboxItem {
  const payload = parsed(row.payload);
  const where: InboxWhere =
    row.source === 'chat'
      ? { source: 'chat', conversationId: row.conversationId, agentName: row.agentName ?? '', title: row.title ?? '' }
      : row.source === 'batch'
        ? {
            source: 'batch',
            batchId: row.batchId!,
            itemId: row.id,
            index: Number(row.itemIndex),
            fields: itemFields(row.itemInput),
            targetName: row.agentName ?? '',
            teamId: row.teamId,
            teamName: row.teamName,
            conversationId: row.conversationId,
          }
        : {
          source: 'team',
          teamId: row.teamId!,
          teamName: row.teamName ?? '',
          jobId: row.id,
          memberId: row.memberId,
          memberName: row.memberName,
          agentName: row.memberId ? null : (row.agentName ?? ''),
          conversationId: row.conversationId,
        };
  return {
    id: `${row.source}:${row.id}`,
    where,
    waiting: row.source === 'team' ? (payload as ApiWaiting) : waitingOf(payload),
    since: toDate(row.since).toISOString(),
  };
}

export async function readInbox(ownerId: string, query: InboxQuery): Promise<InboxPage> {
  const owners = ownerParams(ownerId);
  // One more than asked tells whether a next page exists without a second query.
  const rows = query.after
    ? await (() => {
        const c = decodeCursor(query.after);
        return laterPage.all<Row>(...owners, c.since, c.since, c.source, c.source, c.id, query.limit + 1);
      })()
    : await firstPage.all<Row>(...owners, query.limit + 1);
  const page = rows.slice(0, query.limit);
  const { n } = (await countAll.get<{ n: number | string }>(...owners))!;
  return {
    items: page.map(toItem),
    total: Number(n),
    nextCursor: rows.length > query.limit ? encodeCursor(page.at(-1)!) : null,
  };
}
