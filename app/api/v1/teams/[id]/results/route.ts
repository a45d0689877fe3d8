import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { searchResults } from '@/server/teams/history';
import { teamRecordRoute } from '@/server/teams/history-route';

export const dynamic = 'force-dynamic';

/** Finished requests with request and answer excerpts; the same page search_team_results gives a member. */
export const GET = teamRecordRoute(searchResults);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
