import 'server-only';
import type { RunnableConfig } from '@langchain/core/runnables';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { LIMITS } from '@/lib/limits';
import type { RunContext } from '@/server/agents/run-types';
import { neutralizedJson } from '@/server/trust/neutralize-tags';
import { STATE_KINDS, StateRefusal, publishState, readState, updateState, type StateActor } from '../state';
import { TeamToolError, executingJob, resolveCaller } from './caller';

const { title, content, entries, projectionBytes } = LIMITS.publicState;
const bounds =
  `Titles: at most ${title.maxChars} characters / ${title.maxBytes} UTF-8 bytes; content: at most ` +
  `${content.maxChars.toLocaleString('en-US')} characters / ${content.maxBytes.toLocaleString('en-US')} bytes. The team keeps at most ` +
  `${entries} entries (archived ones included) within ${projectionBytes.toLocaleString('en-US')} bytes; reuse and shorten entries.`;

/** The calling member, from the run's server-owned context only. */
async function actorFor(config: RunnableConfig | undefined): Promise<StateActor> {
  const caller = await resolveCaller(config);
  return {
    teamId: caller.team.id,
    memberId: caller.member.id,
    conversationId: caller.conversationId,
    jobId: (await executingJob(caller.conversationId))?.id ?? null,
  };
}

/** Run a state operation; refusals become tool errors the model reads (nothing was written). */
async function answer(fn: () => Promise<unknown>): Promise<string> {
  try {
    return neutralizedJson(await fn());
  } catch (err) {
    if (err instanceof StateRefusal) throw new TeamToolError(err.message);
    throw err;
  }
}

/**
 * The public-state tools of the `team` group: publish_team_state, read_team_state, update_team_state. The team
 * and the calling member come from the run's context (config), never from the arguments.
 */
export function stateTools(_context: RunContext) {
  const publish = tool(
    (args, config) =>
      answer(async () => {
        const actor = await actorFor(config);
        return publishState(actor, { requestId: args.request_id, kind: args.kind, title: args.title, content: args.content });
      }),
    {
      name: 'publish_team_state',
      description:
        'Publish an entry to the team public state (objective, plan, finding, question or requirement) that every member sees. ' +
        'Retrying with the same request_id returns the same entry; a new request_id publishes a new entry. ' +
        `Returns { entry, revision }. ${bounds}`,
      schema: z.object({
        request_id: z.string().describe('Your own id for this publication; reuse it only to retry the same publication'),
        kind: z.enum(STATE_KINDS).describe('What the entry is'),
        title: z.string().describe('Short title'),
        content: z.string().describe('The entry text'),
      }),
    },
  );

  const read = tool(
    (args, config) =>
      answer(async () => {
        const actor = await actorFor(config);
        return readState(actor.teamId, {
          entryId: args.entry_id,
          kind: args.kind,
          query: args.query,
          includeArchived: args.include_archived ?? false,
        });
      }),
    {
      name: 'read_team_state',
      description:
        'Read the team public state: every matching entry (with its id and revision) and the team-state revision. ' +
        'query matches title or content literally, ignoring case. Archived entries only with include_archived.',
      schema: z.object({
        entry_id: z.string().optional().describe('Only this entry'),
        kind: z.enum(STATE_KINDS).optional().describe('Only entries of this kind'),
        query: z.string().optional().describe('Literal text to find in title or content (case-insensitive)'),
        include_archived: z.boolean().optional().describe('Also return archived entries'),
      }),
    },
  );

  const update = tool(
    (args, config) =>
      answer(async () => {
        const actor = await actorFor(config);
        return updateState(actor, {
          entryId: args.entry_id,
          expectedRevision: args.expected_revision,
          title: args.title,
          content: args.content,
          status: args.status,
        });
      }),
    {
      name: 'update_team_state',
      description:
        'Replace the title, content and status of a team state entry. Pass the entry revision you read as expected_revision: ' +
        'if someone changed it since, nothing is written and you get { updated: false, conflict: true, entry } with the current ' +
        'entry to reconcile. Archiving removes the entry from the shared context but keeps it searchable (it still counts ' +
        `toward the entry limit). Returns { updated: true, entry } on success. ${bounds}`,
      schema: z.object({
        entry_id: z.string().describe('The entry id'),
        expected_revision: z.number().int().describe('The entry revision you last read'),
        title: z.string().describe('The new title (repeat the old one to keep it)'),
        content: z.string().describe('The new content (repeat the old one to keep it)'),
        status: z.enum(['active', 'archived']).describe('active, or archived to drop it from the shared context'),
      }),
    },
  );

  return [publish, read, update];
}
