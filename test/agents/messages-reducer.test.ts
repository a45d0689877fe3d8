import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AIMessage, AIMessageChunk, HumanMessage, RemoveMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { REMOVE_ALL_MESSAGES, messagesStateReducer, type Messages } from '@langchain/langgraph';
import { appendingMessagesReducer } from '@/server/agents/messages-reducer';

// The oracle is the library's own messagesStateReducer: the same abstract operations are applied to two states,
// one reduced by each, and every resulting list must hold the same messages (class, content, ids) in the same
// order. Operations name positions, resolved in each state separately, so ids the reducers assigned are exercised.

type NewItem = { kind: 'human' | 'ai' | 'tool' | 'chunk' | 'plain' | 'string'; withId: boolean };
type Item = { op: 'new'; item: NewItem } | { op: 'replace'; at: number } | { op: 'remove'; at: number } | { op: 'removeMissing' } | { op: 'removeAll' } | { op: 'repeatId' };
type Step = { base: number; items: Item[]; single: boolean; pushInPlace: boolean; twice: boolean; reload: number; cloneTail: number };

const newItem = fc.record({ kind: fc.constantFrom('human', 'ai', 'tool', 'chunk', 'plain', 'string' as const), withId: fc.boolean() }) as fc.Arbitrary<NewItem>;
// Mostly appends of new messages (the fast path), with every other kind of update mixed in.
const item: fc.Arbitrary<Item> = fc.oneof(
  { weight: 8, arbitrary: newItem.map((i) => ({ op: 'new' as const, item: i })) },
  { weight: 2, arbitrary: fc.nat().map((at) => ({ op: 'replace' as const, at })) },
  { weight: 2, arbitrary: fc.nat().map((at) => ({ op: 'remove' as const, at })) },
  { weight: 1, arbitrary: fc.constant({ op: 'removeMissing' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'removeAll' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'repeatId' as const }) },
);
const step: fc.Arbitrary<Step> = fc.record({
  // Usually the newest state; sometimes an older one again (a replay from an earlier checkpoint).
  base: fc.oneof({ weight: 5, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.nat() }),
  items: fc.array(item, { minLength: 0, maxLength: 4 }),
  single: fc.boolean(),
  pushInPlace: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  // LangGraph reduces the same list with the same message objects twice in a step (a branch's local read first).
  twice: fc.boolean(),
  // The next run reads the list back from the checkpoint: a new array, the older messages the same objects, the
  // newest ones decoded again (new objects, same ids).
  reload: fc.integer({ min: 0, max: 3 }),
  cloneTail: fc.integer({ min: 0, max: 3 }),
});

function reloaded(list: BaseMessage[], cloneTail: number): BaseMessage[] {
  const copy = [...list];
  for (let i = Math.max(0, copy.length - cloneTail); i < copy.length; i++) {
    const m = copy[i]!;
    copy[i] = new (m.constructor as new (fields: unknown) => BaseMessage)({ ...m.lc_kwargs });
  }
  return copy;
}

type Reducer = (left: Messages, right: Messages) => BaseMessage[];

/** Builds one reducer's update from the abstract items; `serial` makes the same given ids and contents on both sides. */
function materialize(items: Item[], state: BaseMessage[], serial: number): unknown[] {
  const out: unknown[] = [];
  let n = 0;
  let lastGivenId: string | undefined;
  for (const it of items) {
    const content = `c${serial}-${n++}`;
    const givenId = `m${serial}-${n}`;
    if (it.op === 'new') {
      const id = it.item.withId ? givenId : undefined;
      if (id) lastGivenId = id;
      switch (it.item.kind) {
        case 'human':
          out.push(new HumanMessage({ content, id }));
          break;
        case 'ai':
          out.push(new AIMessage({ content, id, tool_calls: [{ id: `call-${givenId}`, name: 't', args: {}, type: 'tool_call' }] }));
          break;
        case 'tool':
          out.push(new ToolMessage({ content, id, tool_call_id: `call-${givenId}` }));
          break;
        case 'chunk':
          out.push(new AIMessageChunk({ content, id }));
          break;
        case 'plain':
          out.push({ role: 'user', content, ...(id ? { id } : {}) });
          break;
        case 'string':
          out.push(content);
          break;
      }
    } else if (it.op === 'replace' && state.length) {
      out.push(new AIMessage({ content, id: state[it.at % state.length]!.id }));
    } else if (it.op === 'remove' && state.length) {
      out.push(new RemoveMessage({ id: state[it.at % state.length]!.id! }));
    } else if (it.op === 'removeMissing') {
      out.push(new RemoveMessage({ id: `missing-${serial}` }));
    } else if (it.op === 'removeAll') {
      out.push(new RemoveMessage({ id: REMOVE_ALL_MESSAGES }));
    } else if (it.op === 'repeatId' && lastGivenId) {
      out.push(new HumanMessage({ content, id: lastGivenId }));
    }
  }
  return out;
}

/** Class, content and id of each message; ids the reducer generated compare as "generated" (they are random). */
function view(list: BaseMessage[], given: Set<string>) {
  return list.map((m) => ({ cls: m.constructor.name, content: m.content, id: given.has(m.id!) ? m.id : 'generated', lcId: m.lc_kwargs.id === m.id }));
}

type Outcome = { states: BaseMessage[][]; results: ({ ok: true } | { ok: false; error: string })[] };

function run(reducer: Reducer, initial: Item[], steps: Step[], given: Set<string>): Outcome {
  const states: BaseMessage[][] = [reducer([], materialize(initial, [], 0) as Messages)];
  const results: Outcome['results'] = [];
  steps.forEach((s, i) => {
    const picked = states[s.base === -1 ? states.length - 1 : s.base % states.length]!;
    const base = s.reload === 0 ? reloaded(picked, s.cloneTail) : picked;
    if (s.pushInPlace) base.push(new HumanMessage({ content: `pushed-${i}`, id: `m-pushed-${i}` }));
    const update = materialize(s.items, base, i + 1);
    for (const u of update) {
      const id = typeof u === 'object' && u !== null ? (u as { id?: string }).id : undefined;
      if (id?.startsWith('m')) given.add(id);
    }
    try {
      const right = (s.single && update.length === 1 ? update[0] : update) as Messages;
      if (s.twice) states.push(reducer(base, right));
      states.push(reducer(base, right));
      results.push({ ok: true });
    } catch (err) {
      results.push({ ok: false, error: (err as Error).message });
    }
  });
  given.add(REMOVE_ALL_MESSAGES);
  for (let i = 0; i < steps.length; i++) given.add(`m-pushed-${i}`);
  return { states, results };
}

describe('appendingMessagesReducer', () => {
  it('gives the same lists as messagesStateReducer for any sequence of appends, replacements and removals', async () => {
    fc.assert(
      fc.property(fc.array(newItem.map((i): Item => ({ op: 'new', item: i })), { maxLength: 6 }), fc.array(step, { minLength: 1, maxLength: 25 }), (initial, steps) => {
        const givenOurs = new Set<string>();
        const givenLib = new Set<string>();
        const ours = run(appendingMessagesReducer, initial, steps, givenOurs);
        const lib = run(messagesStateReducer as Reducer, initial, steps, givenLib);
        expect(ours.results).toEqual(lib.results);
        expect(ours.states.length).toBe(lib.states.length);
        ours.states.forEach((list, i) => {
          expect(view(list, givenOurs)).toEqual(view(lib.states[i]!, givenLib));
          // Every message ends up with an id (the library keeps duplicates after a remove-all, so no uniqueness here).
          expect(list.every((m) => typeof m.id === 'string' && m.id.length > 0)).toBe(true);
        });
      }),
      { numRuns: 400 },
    );
  });

  it('appends new messages as the very same objects, giving id-less ones an id like the library does', async () => {
    const a = new HumanMessage({ content: 'a', id: 'a' });
    const first = appendingMessagesReducer([], [a]);
    const tool = new ToolMessage({ content: 'r', tool_call_id: 'c' });
    const second = appendingMessagesReducer(first, [tool]);
    expect(second).toEqual([a, tool]);
    expect(second[1]).toBe(tool);
    expect(tool.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(tool.lc_kwargs.id).toBe(tool.id);
    expect(first).toEqual([a]); // the earlier list is not changed
  });

  it('replaces by id and removes by id after appends (the index follows the newest list)', async () => {
    let list = appendingMessagesReducer([], [new HumanMessage({ content: 'a', id: 'a' })]);
    list = appendingMessagesReducer(list, [new AIMessage({ content: 'b', id: 'b' })]);
    list = appendingMessagesReducer(list, [new AIMessage({ content: 'b2', id: 'b' })]);
    expect(list.map((m) => [m.id, m.content])).toEqual([
      ['a', 'a'],
      ['b', 'b2'],
    ]);
    list = appendingMessagesReducer(list, [new RemoveMessage({ id: 'a' })]);
    expect(list.map((m) => m.id)).toEqual(['b']);
    expect(() => appendingMessagesReducer(list, [new RemoveMessage({ id: 'a' })])).toThrow(/doesn't exist/);
  });

  it('sees an id appended to a later list when an earlier list is reduced again (no shared index)', async () => {
    const base = appendingMessagesReducer([], [new HumanMessage({ content: 'a', id: 'a' })]);
    const later = appendingMessagesReducer(base, [new AIMessage({ content: 'x', id: 'x' })]);
    // Replaying from `base`: x is new there, so it is appended, not treated as a replacement.
    const replay = appendingMessagesReducer(base, [new AIMessage({ content: 'x2', id: 'x' })]);
    expect(replay.map((m) => [m.id, m.content])).toEqual([
      ['a', 'a'],
      ['x', 'x2'],
    ]);
    expect(later.map((m) => m.content)).toEqual(['a', 'x']);
    // And the later list still replaces x in place.
    const replaced = appendingMessagesReducer(later, [new AIMessage({ content: 'x3', id: 'x' })]);
    expect(replaced.map((m) => m.content)).toEqual(['a', 'x3']);
  });

  it('keeps each list right when sibling lists append the same id at different positions', async () => {
    const base = appendingMessagesReducer([], [new HumanMessage({ content: 'a', id: 'a' })]);
    const withX = appendingMessagesReducer(base, [new AIMessage({ content: 'x', id: 'x' })]);
    const withY = appendingMessagesReducer(base, [new AIMessage({ content: 'y', id: 'y' })]);
    const withYX = appendingMessagesReducer(withY, [new AIMessage({ content: 'x-after-y', id: 'x' })]);
    expect(withYX.map((m) => m.id)).toEqual(['a', 'y', 'x']);
    // Replacing x finds it at its own position in each list.
    expect(appendingMessagesReducer(withYX, [new AIMessage({ content: 'x2', id: 'x' })]).map((m) => m.content)).toEqual(['a', 'y', 'x2']);
    expect(appendingMessagesReducer(withX, [new AIMessage({ content: 'x2', id: 'x' })]).map((m) => m.content)).toEqual(['a', 'x2']);
    // y is not in withX, so it is appended there.
    expect(appendingMessagesReducer(withX, [new AIMessage({ content: 'y2', id: 'y' })]).map((m) => m.id)).toEqual(['a', 'x', 'y']);
  });
});

describe('appendingMessagesReducer on lists read back from a checkpoint (a new array sharing the first messages)', () => {
  const h = (id: string, content = id) => new HumanMessage({ content, id });
  const ids = (list: BaseMessage[]) => list.map((m) => `${m.id}:${String(m.content)}`);
  const expectLikeLibrary = (left: BaseMessage[], right: BaseMessage[]) => expect(ids(appendingMessagesReducer(left, right))).toEqual(ids(messagesStateReducer(left, right)));

  it('still replaces an id in an older list after a reloaded sibling list holds that id at another position', async () => {
    const older = appendingMessagesReducer([], [h('a'), h('b'), h('x')]); // x at 2
    const removed = appendingMessagesReducer(older, [new RemoveMessage({ id: 'b' })]); // library: [a, x], x at 1
    const reloaded = [removed[0]!, h('x', 'x decoded')]; // same first message, x decoded again, at 1
    expectLikeLibrary(reloaded, [h('x', 'x replaced')]);
    appendingMessagesReducer(reloaded, [h('y')]);
    // The older list holds x at 2: replacing it must not append a second x.
    expectLikeLibrary(older, [h('x', 'x replaced in older')]);
    expect(appendingMessagesReducer(older, [h('x', 'again')]).map((m) => m.id)).toEqual(['a', 'b', 'x']);
  });

  it('finds an id the reloaded list holds twice (its index is not reused as if ids were unique)', async () => {
    const prev = appendingMessagesReducer([], [h('a'), h('b')]);
    const withTwice = [...prev, h('y', 'first y'), h('y', 'second y')];
    expectLikeLibrary(withTwice, [h('z')]);
    appendingMessagesReducer(withTwice, [h('z')]);
    // Read back again, keeping only the first y: y is still in the list and must be replaced, not appended.
    const again = [...withTwice.slice(0, 3), h('w')];
    expectLikeLibrary(again, [h('y', 'y replaced')]);
    expect(appendingMessagesReducer(again, [h('y', 'y replaced')]).map((m) => m.id)).toEqual(['a', 'b', 'y', 'w']);
  });
});

// The previous, whole-list implementation: the oracle for the remembered scan.
function answerDanglingReference(messages: readonly BaseMessage[]): BaseMessage[] {
  const answered = new Set(messages.filter((m) => m.getType() === 'tool').map((m) => (m as ToolMessage).tool_call_id));
  const out: BaseMessage[] = [];
  for (const m of messages) {
    out.push(m);
    if (!AIMessage.isInstance(m)) continue;
    for (const call of m.tool_calls ?? []) {
      if (call.id && !answered.has(call.id)) out.push(new ToolMessage({ tool_call_id: call.id, name: call.name, status: 'error', content: 'This tool call did not run: the conversation moved on before it finished.' }));
    }
  }
  return out;
}

describe('answerDanglingToolCalls (remembers the scan of the list it extends)', () => {
  const shape = (list: BaseMessage[]) => list.map((m) => ({ cls: m.constructor.name, content: m.content, call: (m as ToolMessage).tool_call_id, status: (m as ToolMessage).status, calls: (m as AIMessage).tool_calls?.map((c) => c.id) }));
  type Grow = { kind: 'human' | 'ai' | 'aiTwoCalls' | 'result' | 'lateResult'; from: number };
  const grow: fc.Arbitrary<Grow> = fc.record({ kind: fc.constantFrom('human', 'ai', 'aiTwoCalls', 'result', 'lateResult' as const), from: fc.oneof({ weight: 4, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.nat() }) });

  it('equals a whole-list scan on growing lists, on lists that go back to an earlier one, and on a replaced message', async () => {
    const { answerDanglingToolCalls } = await import('@/server/agents/graph');
    fc.assert(
      fc.property(fc.array(grow, { minLength: 1, maxLength: 30 }), fc.nat(), (steps, replaceAt) => {
        const first = new HumanMessage({ content: 'start', id: 'first' });
        const lists: BaseMessage[][] = [[first]];
        let n = 0;
        for (const g of steps) {
          const base = lists[g.from === -1 ? lists.length - 1 : g.from % lists.length]!;
          const calls = base.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []) : []));
          n++;
          let next: BaseMessage;
          if (g.kind === 'human') next = new HumanMessage({ content: `h${n}` });
          else if (g.kind === 'ai') next = new AIMessage({ content: '', tool_calls: [{ id: `c${n}`, name: 'calc', args: {}, type: 'tool_call' }] });
          else if (g.kind === 'aiTwoCalls') next = new AIMessage({ content: '', tool_calls: [{ id: `c${n}a`, name: 'a', args: {}, type: 'tool_call' }, { id: `c${n}b`, name: 'b', args: {}, type: 'tool_call' }] });
          else {
            // A result for the newest call, or (lateResult) for an older one: answers a call that was dangling.
            const call = g.kind === 'result' ? calls.at(-1) : calls[n % Math.max(1, calls.length)];
            next = new ToolMessage({ content: `r${n}`, tool_call_id: call?.id ?? `none${n}` });
          }
          lists.push([...base, next]);
        }
        for (const list of lists) expect(shape(answerDanglingToolCalls(list))).toEqual(shape(answerDanglingReference(list)));
        // A message replaced in the middle (a new object at an old position) is seen.
        const longest = lists.at(-1)!;
        if (longest.length > 1) {
          const at = 1 + (replaceAt % (longest.length - 1));
          const replaced = [...longest];
          replaced[at] = new AIMessage({ content: '', tool_calls: [{ id: `replaced`, name: 'r', args: {}, type: 'tool_call' }] });
          expect(shape(answerDanglingToolCalls(replaced))).toEqual(shape(answerDanglingReference(replaced)));
          expect(shape(answerDanglingToolCalls(longest))).toEqual(shape(answerDanglingReference(longest)));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('ScriptedChatModel usage (counts only what a list adds to the last one it saw)', () => {
  it('reports the input size of the whole list, for growing, reloaded and edited lists', async () => {
    const { ScriptedChatModel } = await import('@/server/agents/scripted-model');
    const { SystemMessage } = await import('@langchain/core/messages');
    const model = new ScriptedChatModel({ agentName: 'Counter' });
    const expected = (list: BaseMessage[]) => Math.ceil(list.reduce((n, m) => n + String(m.content).length, 0) / 4);
    const seen = async (list: BaseMessage[]) => (await model.invoke(list)).usage_metadata?.input_tokens;
    const first = new HumanMessage({ content: 'first request, a few words long', id: 'h1' });
    let list: BaseMessage[] = [first];
    for (let i = 0; i < 12; i++) {
      const call = [new SystemMessage(i % 3 ? 'system prompt' : 'a longer system prompt this time'), ...list];
      expect(await seen(call)).toBe(expected(call));
      list = [...list, new AIMessage({ content: `answer ${i} `.repeat(i + 1), id: `a${i}` }), new HumanMessage({ content: `request ${i}`, id: `h${i + 2}` })];
      if (i % 4 === 3) list = list.map((m, j) => (j >= list.length - 3 ? new HumanMessage({ content: String(m.content), id: m.id }) : m)); // read back
      if (i % 5 === 4) list = [first, new HumanMessage({ content: 'edited in the middle, longer than before', id: 'e' }), ...list.slice(2)];
    }
  });
});
