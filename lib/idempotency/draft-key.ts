/**
 * Idempotency keys that follow a draft: the same content keeps its key (so a retry after a failure or a lost
 * response is the same request on the server), a changed draft gets a new one, and a key that succeeded is
 * never reused for a later draft that happens to have the same content.
 */

export type KeyedDraft = { signature: string; key: string };

/** Content identity of a composer draft; recipient order does not matter. */
export function draftSignature(text: string, memberIds: readonly string[]): string {
  return JSON.stringify([text, [...memberIds].sort()]);
}

/** Content identity of a team-creation form (agent order matters: it sets member order). */
export function teamDraftSignature(name: string, goal: string, agentIds: readonly string[]): string {
  return JSON.stringify([name, goal, agentIds]);
}

/** The key to send for this signature: the previous one if the content is unchanged, else a fresh one. */
export function keyForDraft(prev: KeyedDraft | null, signature: string, newKey: () => string): KeyedDraft {
  if (prev && prev.signature === signature) return prev;
  return { signature, key: newKey() };
}

/** After a successful send: forget the key so identical content typed later is a new request. */
export function forgetKeyAfterSuccess(current: KeyedDraft | null, sentKey: string): KeyedDraft | null {
  return current && current.key === sentKey ? null : current;
}

/** A sent draft is cleared only if the person has not changed it while it was being sent. */
export function draftStillEquals(
  current: { text: string; memberIds: readonly string[] },
  sent: { text: string; memberIds: readonly string[] },
): boolean {
  return draftSignature(current.text, current.memberIds) === draftSignature(sent.text, sent.memberIds);
}
