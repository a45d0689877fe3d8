import 'server-only';
import { tool } from '@langchain/core/tools';
import { LIMITS } from '@/lib/limits';
import { historyToolArgs, readResultArgs } from '@/lib/schemas/team-history';
import type { RunContext } from '@/server/agents/run-types';
import { AppError } from '@/server/http/errors';
import { readHistory, readResult, searchResults } from '../history';
import { neutralizedJson } from '@/server/trust/neutralize-tags';
import { resolveCaller, TeamToolError } from './caller';

const H = LIMITS.history;

/** Service refusals (bad cursor, unknown member, …) reach the model as tool errors with the same message. */
async function asToolError<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) throw new TeamToolError(err.message);
    throw err;
  }
}

const pagingNote =
  `Pages hold up to limit records (default ${H.defaultLimit}, ${H.minLimit}-${H.maxLimit}) and at most ${H.responseBytes.toLocaleString('en-US')} bytes; ` +
  'pass next_cursor back with the same filters for older records. cursor_expired means the anchor left retention: start again.';

/**
 * The read-only evidence tools of the `team` group. The team and the calling member come from the run's
 * server-owned context at call time (resolveCaller), never from the arguments; any other caller gets a tool error.
 */
export function historyTools(_context: RunContext) {
  const readTeamHistory = tool(
    async (args, config) => {
      const { team } = await resolveCaller(config);
      const page = await asToolError(() =>
        readHistory(team.id, { memberId: args.member_id, jobId: args.job_id, query: args.query, limit: args.limit, cursor: args.cursor }),
      );
      return neutralizedJson(page);
    },
    {
      name: 'read_team_history',
      description:
        `Page through the team's retained shared record (the last ${LIMITS.sharedRecord.retained} messages: requests, results, errors, notes), newest first. ` +
        `Optional filters apply before paging: member_id (sender or recipient), job_id, query (literal text, ignoring case). ${pagingNote}`,
      schema: historyToolArgs,
    },
  );

  const searchTeamResults = tool(
    async (args, config) => {
      const { team } = await resolveCaller(config);
      const page = await asToolError(() =>
        searchResults(team.id, { memberId: args.member_id, jobId: args.job_id, query: args.query, limit: args.limit, cursor: args.cursor }),
      );
      return neutralizedJson(page);
    },
    {
      name: 'search_team_results',
      description:
        'Find finished team requests (completed, failed, cancelled), newest first, with short excerpts of the request and its answer. ' +
        'Filters: member_id (the member asked or asking), job_id (that request and the handoffs it started), query (literal text in the request or answer, ignoring case). ' +
        `Read one in full with read_team_result. ${pagingNote}`,
      schema: historyToolArgs,
    },
  );

  const readTeamResult = tool(
    async ({ job_id }, config) => {
      const { team } = await resolveCaller(config);
      const result = await readResult(team.id, job_id);
      if (!result) throw new TeamToolError(`No request or receipt "${job_id}" in this team`);
      return neutralizedJson(result);
    },
    {
      name: 'read_team_result',
      description:
        'Read one team request or result receipt by job_id: member, requester, status, parent, timestamps, conversation and run ids, ' +
        `a short request excerpt and the retained answer (up to ${H.textBytes.toLocaleString('en-US')} bytes). result.available is false with a reason ` +
        '(unfinished, cancelled, not_retained) when there is no answer to show.',
      schema: readResultArgs,
    },
  );

  return [readTeamHistory, searchTeamResults, readTeamResult];
}
