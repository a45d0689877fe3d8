import { afterEach, describe, expect, it } from 'vitest';
import { liveOutputHeading } from '@/components/live-output/live-output-box';
import { parseOutputPush, type LiveOutput } from '@/components/live-output/store';
import { LIMITS } from '@/lib/limits';
import { beginLiveResponse, finishLiveOutput, setLiveOutputClock, type LiveScope } from '@/server/agents/live-output/registry';
import { systemClock } from '@/server/agents/live-output/throttle';
import { frozenClock } from '../support/frozen-clock';
import { pushBus, type LiveOutputChange } from '@/server/push/bus';

// An MCP tool's progress in the live output box (ADR 031, 055): it is the tool's, named with its server, not
// "Writing…", until the model writes again. What must not happen: progress lines headed "Writing…"; the model's
// next words shown as the tool's, or appended to its progress lines.

const scope = (n: string): LiveScope => ({ ownerId: 'owner-p', conversationId: `c-${n}`, runId: `run-${n}`, teamId: null, jobId: null });
const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
  setLiveOutputClock(systemClock);
});

function heard(runId: string) {
  const all: LiveOutputChange[] = [];
  const on = (c: LiveOutputChange) => c.runId === runId && all.push(c);
  pushBus().on('liveOutput', on);
  stops.push(() => pushBus().off('liveOutput', on));
  return all;
}

describe("the live output registry and a tool's progress", () => {
  it("publishes a tool's progress as that tool's; the model's next words replace it and are the model's again", () => {
    const { clock, advance } = frozenClock();
    setLiveOutputClock(clock);
    const messages = heard('run-tool');
    const model = beginLiveResponse(scope('tool'));
    model.append('Let me look that up. ');
    model.end();
    expect(messages.at(-1)).toMatchObject({ text: 'Let me look that up. ', tool: null });

    const tool = beginLiveResponse(scope('tool'), { server: 'docs', tool: 'lookup' });
    advance(LIMITS.liveOutput.publishMs);
    tool.append('docs/lookup: 1/3 reading\n');
    expect(messages.at(-1)).toMatchObject({ text: 'docs/lookup: 1/3 reading\n', tool: { server: 'docs', tool: 'lookup' } });
    advance(LIMITS.liveOutput.publishMs);
    tool.append('docs/lookup: 2/3 indexing\n');
    tool.end();
    expect(messages.at(-1)).toMatchObject({ text: 'docs/lookup: 1/3 reading\ndocs/lookup: 2/3 indexing\n', tool: { server: 'docs', tool: 'lookup' } });

    // The next model call has begun but not written yet: the progress is still what shows, as the tool's.
    const next = beginLiveResponse(scope('tool'));
    advance(LIMITS.liveOutput.publishMs);
    expect(messages.at(-1)).toMatchObject({ tool: { server: 'docs', tool: 'lookup' } });
    next.append('Found it.');
    next.end();
    expect(messages.at(-1)).toMatchObject({ text: 'Found it.', tool: null, done: false });
    finishLiveOutput('run-tool');
    expect(messages.at(-1)).toMatchObject({ text: 'Found it.', tool: null, done: true });
  });
});

describe('the live output box heading', () => {
  const live = (over: Partial<LiveOutput> = {}): LiveOutput => ({ runId: 'r1', text: 'docs/lookup: 1/3 reading', truncated: false, done: false, retrying: null, tool: null, ...over });

  it("names the tool and its server while a tool's progress shows, never 'Writing…'", () => {
    expect(liveOutputHeading(live({ tool: { server: 'docs', tool: 'lookup' } }))).toBe('Running lookup of MCP server docs…');
    expect(liveOutputHeading(live({ tool: { server: 'docs', tool: 'lookup' }, done: true }))).toBe('Written so far');
    expect(liveOutputHeading(live({ tool: null }))).toBe('Writing…');
  });

  it('reads the tool from the stream message only when it is two names', () => {
    const base = { conversationId: 'c1', runId: 'r1', text: 'x', truncated: false, done: false };
    const parse = (tool: unknown) => parseOutputPush(JSON.stringify({ ...base, tool }), { field: 'conversationId', id: 'c1' })?.tool ?? null;
    expect(parse({ server: 'docs', tool: 'lookup' })).toEqual({ server: 'docs', tool: 'lookup' });
    for (const bad of [null, 'docs/lookup', { server: 'docs' }, { server: 'docs', tool: 7 }, ['docs', 'lookup']]) {
      expect(parse(bad)).toBeNull();
    }
  });
});
