import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { readHistory } from '@/server/teams/history';
import { teamRecordRoute } from '@/server/teams/history-route';

export const dynamic = 'force-dynamic';

/** The team's retained shared record, newest first; the same page read_team_history gives a member. */
export const GET = teamRecordRoute(readHistory);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
