import 'server-only';
import { BaseMessageChunk, RemoveMessage, isBaseMessage, type BaseMessage } from '@langchain/core/messages';
import { v4 as uuidv4 } from '@langchain/core/utils/uuid';
import { messagesStateReducer, type Messages } from '@langchain/langgraph';

/**
 * `messagesStateReducer` with the same results, in O(new messages) for the common step: an update whose messages
 * are all new (no id already in the list, no RemoveMessage, no chunk, no plain object to coerce). The library
 * re-coerces and re-indexes the whole list at every step, which made a run's cost grow with the conversation.
 * Anything else — replacement by id, removal, remove-all, coercion, a list not yet indexed that needs fixing up —
 * goes to the library reducer itself, so its semantics stay the reference.
 */
export function appendingMessagesReducer(left: Messages, right: Messages): BaseMessage[] {
  if (!Array.isArray(left)) return messagesStateReducer(left, right);
  const index = indexFor(left);
  const update = Array.isArray(right) ? right : [right];
  if (!index || !allNew(left, update, index)) return messagesStateReducer(left, right);

  // Same id assignment as the library (it mutates the message too), then append.
  const added = update as BaseMessage[];
  for (const m of added) {
    if (m.id === null || m.id === undefined) {
      m.id = uuidv4();
      m.lc_kwargs.id = m.id;
    }
  }
  const merged = (left as BaseMessage[]).concat(added); // indexFor checked every element is a message
  // The index is shared along a line of lists (each extends the one before); LangGraph reduces the same list twice
  // per step (a branch reads a local copy, then the real update), so a list keeps its index after being extended.
  // An entry is never moved to another position: an id already indexed elsewhere (a sibling list appended it)
  // gets this list its own copy of the index, so every list's ids stay at their positions in its index.
  let ids = index.ids;
  if (added.some((m, i) => (ids.get(m.id!) ?? left.length + i) !== left.length + i)) ids = new Map(ids);
  for (let i = 0; i < added.length; i++) ids.set(added[i]!.id!, left.length + i);
  remember(merged, { ids, length: merged.length, unique: index.unique });
  return merged;
}

/**
 * Id → position for a list of `length` messages. It may also hold ids of sibling lists (appended to an earlier
 * list of the same line): an id is in the list only when the list holds it at that position (see `holds`).
 * `unique`: no id occurs twice in the list (then every id maps to its only position).
 */
type Index = { ids: Map<string, number>; length: number; unique: boolean };

/** Lists this reducer returned (or checked), with the ids they hold; weak, so a dropped state frees its index. */
const indexes = new WeakMap<readonly unknown[], Index>();

/** The newest indexed list of each line, keyed by its first message (weak: a dropped conversation frees it). */
const newestOfLine = new WeakMap<object, readonly unknown[]>();

function remember(list: readonly unknown[], index: Index): Index {
  indexes.set(list, index);
  const first = list[0];
  if (typeof first === 'object' && first !== null) newestOfLine.set(first, list);
  return index;
}

/**
 * The id index of a list whose every element the library would keep as it is (a message, not a chunk, with an
 * id), or undefined when the library must fix the list up. A list changed in place since it was indexed (its
 * length differs) is indexed again. A list read back from the checkpoint (each run starts so) shares its first
 * messages, as the same objects, with the newest list of its line: that index is reused and only the rest checked.
 */
function indexFor(list: readonly unknown[]): Index | undefined {
  const cached = indexes.get(list);
  if (cached && cached.length === list.length) return cached;
  const extended = extendedIndex(list);
  if (extended) return remember(list, extended);
  for (const m of list) if (!keptAsIs(m) || m.id === null || m.id === undefined) return undefined;
  return remember(list, freshIndex(list as readonly BaseMessage[]));
}

function freshIndex(list: readonly BaseMessage[]): Index {
  const ids = new Map<string, number>();
  for (let i = 0; i < list.length; i++) ids.set(list[i]!.id!, i);
  return { ids, length: list.length, unique: ids.size === list.length };
}

/** The index of the newest list of the line, extended with the rest of `list`; undefined when it can't be. */
function extendedIndex(list: readonly unknown[]): Index | undefined {
  const first = list[0];
  const prev = typeof first === 'object' && first !== null ? newestOfLine.get(first) : undefined;
  const prevIndex = prev && indexes.get(prev);
  if (!prev || !prevIndex || !prevIndex.unique || prevIndex.length !== prev.length) return undefined;
  let shared = 0;
  const max = Math.min(prev.length, list.length);
  while (shared < max && list[shared] === prev[shared]) shared++;
  if (shared === 0) return undefined;
  // The shared messages were checked with `prev`. The rest must be messages as the library keeps them, with ids
  // not in the shared part nor repeated, so the list stays unique; an id mapped elsewhere (a sibling list's)
  // gets the list its own copy of the index.
  const seen = new Set<string>();
  let conflict = false;
  for (let i = shared; i < list.length; i++) {
    const m = list[i];
    if (!keptAsIs(m) || m.id === null || m.id === undefined || seen.has(m.id)) return undefined;
    seen.add(m.id);
    const at = prevIndex.ids.get(m.id);
    // prev is unique, so an id of the shared part maps to its one position there.
    if (at !== undefined && at < shared && (list[at] as BaseMessage).id === m.id) return undefined;
    if (at !== undefined && at !== i) conflict = true;
  }
  const ids = conflict ? new Map(prevIndex.ids) : prevIndex.ids;
  for (let i = shared; i < list.length; i++) ids.set((list[i] as BaseMessage).id!, i);
  return { ids, length: list.length, unique: true };
}

/** The library's `toMessage` returns these unchanged. */
function keptAsIs(m: unknown): m is BaseMessage {
  return isBaseMessage(m) && !BaseMessageChunk.isInstance(m);
}

/** Every message is kept as it is, is not a removal, and has no id already in the list or earlier in the update. */
function allNew(list: readonly unknown[], update: readonly unknown[], index: Index): boolean {
  const seen = new Set<string>();
  for (const m of update) {
    if (!keptAsIs(m) || RemoveMessage.isInstance(m)) return false;
    if (m.id === null || m.id === undefined) continue;
    if (holds(list, index, m.id) || seen.has(m.id)) return false;
    seen.add(m.id);
  }
  return true;
}

function holds(list: readonly unknown[], index: Index, id: string): boolean {
  const at = index.ids.get(id);
  return at !== undefined && at < list.length && (list[at] as BaseMessage).id === id;
}
