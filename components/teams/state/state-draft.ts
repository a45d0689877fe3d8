import { LIMITS } from '@/lib/limits';
import { boundedTextProblem, jsonBytes } from '@/lib/text-bounds';
import type { ApiStateEntry } from '@/lib/types/team';
import type { StateKind } from './state-view';

/** What the person is writing: a new entry, or an edit of one (kind fixed then). */
export type StateDraft = { kind: StateKind; title: string; content: string };
export type DraftErrors = { title?: string; content?: string };

/** The field errors the server would answer for this draft (same rule: lib/text-bounds), or none. */
export function draftErrors(draft: Pick<StateDraft, 'title' | 'content'>): DraftErrors {
  const title = boundedTextProblem(draft.title, LIMITS.publicState.title, 'Title') ?? undefined;
  const content = boundedTextProblem(draft.content, LIMITS.publicState.content, 'Content', false) ?? undefined;
  return { ...(title ? { title } : {}), ...(content ? { content } : {}) };
}

export const hasErrors = (errors: DraftErrors) => Boolean(errors.title || errors.content);

/** A create's identity for its requestId: the same draft retried is the same request (lib/idempotency/draft-key). */
export const draftSignature = (draft: StateDraft) => JSON.stringify([draft.kind, draft.title, draft.content]);

/**
 * The projection the 16,000-byte budget measures, as the panel can see it: the API lists the entries exactly as
 * the budget counts them (every entry, archived ones included).
 */
export const projectionUsed = (entries: readonly ApiStateEntry[]) => jsonBytes(entries);

/** The person's side of a conflict: what they tried to save. */
export type MyVersion = { title: string; content: string; status: ApiStateEntry['status'] };

/** Which parts differ between the person's version and the current one (marked in the side-by-side view). */
export function changedParts(mine: MyVersion, theirs: Pick<ApiStateEntry, 'title' | 'content' | 'status'>): Array<keyof MyVersion> {
  return (['title', 'content', 'status'] as const).filter((k) => mine[k] !== theirs[k]);
}
