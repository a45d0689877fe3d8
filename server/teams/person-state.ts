import 'server-only';
import type { ApiStateEntry } from '@/lib/types/team';
import type { CreateStateEntryInput, UpdateStateEntryInput } from '@/lib/schemas/team-state';
import { conflict, notFound, validationError } from '@/server/http/errors';
import { StateRefusal, publishEntry, updateEntry, type StateWriter, type UpdateResult } from './state';
import { requireTeam } from './teams';

/**
 * The person in charge writing the team's public state (the workspace's Team state panel and the JSON API).
 * Same rules and bounds as the member tools (state.ts checks them in the write transaction); only the writer
 * differs: no member, no conversation, no job — the entry reads "You". Members see it in their shared context
 * like any entry, inside the human message's data block. Jobs already admitted keep their frozen input.
 */

const n = (v: number) => v.toLocaleString('en-US');

const personWriter = (teamId: string): StateWriter => ({ teamId, memberId: null, conversationId: null, jobId: null, keyScope: 'person' });

/** A refusal worded for the person (the members' wording names their tools). Nothing was written. */
function personError(err: unknown): unknown {
  if (!(err instanceof StateRefusal)) return err;
  const f = err.figures;
  switch (err.code) {
    case 'not_found':
      return notFound('State entry');
    case 'invalid': {
      const field = /^(title|content|kind|status|request_id|expected_revision)\b/.exec(err.message)?.[1] ?? '_';
      const name = { request_id: 'requestId', expected_revision: 'expectedRevision' }[field] ?? field;
      return validationError({ [name]: err.message });
    }
    case 'request_id_reused':
      return conflict('request_id_reused', 'This requestId was already used for a different entry. Use a new one to add another entry.');
    case 'entry_limit':
      return conflict('entry_limit', 'Team state is full: 20 entries, archived ones included (archiving does not free a slot). Edit an existing entry instead.');
    case 'projection_limit':
      return conflict(
        'projection_limit',
        `Team state would take ${n(f?.value ?? 0)} bytes, over its ${n(f?.limit ?? 0)}-byte budget (all entries, archived ones included). Shorten this or another entry.`,
      );
    case 'context_limit':
      return conflict(
        'context_limit',
        `The members’ shared context (goal, roster and active entries) would take ${n(f?.value ?? 0)} bytes, over its ${n(f?.limit ?? 0)}-byte budget. Shorten or archive an active entry.`,
      );
  }
}

async function asPerson<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw personError(err);
  }
}

/** Add an entry; the same requestId again answers the entry it made (`created: false`), as it is now. */
export async function createPersonEntry(ownerId: string, teamId: string, input: CreateStateEntryInput): Promise<{ entry: ApiStateEntry; created: boolean }> {
  await requireTeam(ownerId, teamId);
  return asPerson(async () => {
    const { entry, created } = await publishEntry(personWriter(teamId), { requestId: input.requestId, kind: input.kind, title: input.title, content: input.content ?? '' });
    return { entry, created };
  });
}

/**
 * Edit, archive or restore an entry (the person's or a member's). A stale expectedRevision changes nothing and
 * answers the entry as it is now (`updated: false`), so the person can choose between both versions.
 */
export async function updatePersonEntry(ownerId: string, teamId: string, entryId: string, input: UpdateStateEntryInput): Promise<UpdateResult> {
  await requireTeam(ownerId, teamId);
  return asPerson(() => updateEntry(personWriter(teamId), { entryId, ...input }));
}

/** The 409 body of a stale edit: the error, and the entry as it is now. */
export function staleEditBody(entry: ApiStateEntry) {
  const by = entry.updatedBy.name;
  return {
    error: {
      code: 'state_conflict',
      message: `${by === 'You' ? 'This entry was changed elsewhere' : `${by} changed this entry`} since you read it (now revision ${entry.revision}). Nothing was saved.`,
    },
    entry,
  };
}
