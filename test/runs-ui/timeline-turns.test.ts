import { describe, expect, it } from 'vitest';
import { buildTimeline } from '@/components/conversations/timeline';
import type { Message } from '@/components/conversations/types';

describe('buildTimeline: turns and provenance', () => {
  it('each human message carries the run that answered it and its provenance', () => {
    const items = buildTimeline([
      { id: 'run:r1', role: 'user', text: 'hi', meta: { runId: 'r1' }, provenance: { contentKind: 'person_message', producer: { type: 'person' } } },
      { id: 'a1', role: 'assistant', text: 'hello', provenance: { contentKind: 'assistant', producer: { type: 'agent' } } },
      {
        id: 'run:r2',
        role: 'user',
        text: 'preamble',
        meta: { runId: 'r2', kind: 'receipt', memberName: 'Review', status: 'completed', resultText: 'ok' },
        provenance: { contentKind: 'receipt', producer: { type: 'framework' }, about: 'Review' },
      },
      { id: 'u3', role: 'user', text: 'no meta' },
      { id: 'u4', role: 'user', text: 'bad meta', meta: { runId: 42 } },
    ] satisfies Message[]);
    expect(items.map((i) => [i.kind, 'runId' in i ? i.runId : undefined, 'provenance' in i ? i.provenance?.contentKind : undefined])).toEqual([
      ['user', 'r1', 'person_message'],
      ['assistant', undefined, undefined],
      ['receipt', 'r2', 'receipt'],
      ['user', undefined, undefined],
      ['user', undefined, undefined],
    ]);
  });

  it('assistant-side text the framework wrote (a summary of earlier turns) is a note, not the agent speaking', () => {
    const items = buildTimeline([
      { id: 's1', role: 'assistant', text: 'Summary of earlier turns', provenance: { contentKind: 'compaction', producer: { type: 'framework' } } },
      { id: 'a2', role: 'assistant', text: 'mine', provenance: { contentKind: 'assistant', producer: { type: 'agent' } } },
    ]);
    expect(items.map((i) => i.kind)).toEqual(['note', 'assistant']);
    expect(items[0]).toMatchObject({ kind: 'note', provenance: { contentKind: 'compaction' } });
  });
});
