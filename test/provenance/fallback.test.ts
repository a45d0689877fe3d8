import { describe, expect, it } from 'vitest';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { toApiMessages } from '@/server/agents/messages';
import { provenanceOf } from '@/server/agents/provenance';

/** Messages as checkpoints written before provenance hold them: server meta (kind, author, names) and nothing more. */
const human = (ensemble?: Record<string, unknown>) => new HumanMessage({ content: 'text', ...(ensemble ? { additional_kwargs: { ensemble } } : {}) });

describe('provenanceOf for checkpoints recorded before provenance', () => {
  it('derives each kind from the meta the message carries', async () => {
    expect(provenanceOf(human({ runId: 'r', taskText: 'hi', author: 'person' }))).toEqual({ contentKind: 'person_message', producer: { type: 'person' } });
    expect(provenanceOf(human())).toEqual({ contentKind: 'person_message', producer: { type: 'person' } });
    expect(provenanceOf(human({ runId: 'r', kind: 'team_request', from: 'You', author: 'person' }))).toEqual({ contentKind: 'team_request', producer: { type: 'person' } });
    // The sender's member id was not kept then: its name is, and the id is null (never invented).
    expect(provenanceOf(human({ runId: 'r', kind: 'team_request', from: 'Research', author: 'member' }))).toEqual({
      contentKind: 'team_request',
      producer: { type: 'member', memberId: null, name: 'Research' },
    });
    expect(provenanceOf(human({ runId: 'r', kind: 'receipt', memberName: 'Review', author: 'member' }))).toEqual({
      contentKind: 'receipt',
      producer: { type: 'framework' },
      about: 'Review',
    });
    expect(provenanceOf(human({ runId: 'r', kind: 'clarification_answer', author: 'person' }))).toEqual({ contentKind: 'clarification_answer', producer: { type: 'person' } });
    expect(provenanceOf(human({ kind: 'mention', taskText: 'hi' }))).toEqual({ contentKind: 'mention', producer: { type: 'person' } });
    // A delegated task was written by the parent agent, even when its directives were trusted (author person).
    expect(provenanceOf(human({ kind: 'delegated_task', author: 'person' }))).toEqual({ contentKind: 'delegated_task', producer: { type: 'agent' } });
    expect(provenanceOf(new AIMessage({ content: 'Queued', additional_kwargs: { ensemble: { kind: 'framework_note' } } }))).toEqual({ contentKind: 'note', producer: { type: 'framework' } });
    expect(provenanceOf(new AIMessage({ content: 'answer' }))).toEqual({ contentKind: 'assistant', producer: { type: 'agent' } });
    expect(provenanceOf(new ToolMessage({ content: '42', tool_call_id: 'c' }))).toEqual({ contentKind: 'tool_result', producer: { type: 'framework' } });
    // A compaction summary is the framework's, whatever message type carries it.
    for (const summary of [human({ kind: 'compaction' }), new AIMessage({ content: 's', additional_kwargs: { ensemble: { kind: 'compaction' } } })]) {
      expect(provenanceOf(summary)).toEqual({ contentKind: 'compaction', producer: { type: 'framework' } });
    }
  });

  it('prefers stored provenance, and ignores a malformed one', async () => {
    const stored = { contentKind: 'team_request', producer: { type: 'member', memberId: 'm1', name: 'Research' } };
    expect(provenanceOf(human({ kind: 'team_request', author: 'member', from: 'Other', provenance: stored }))).toEqual(stored);
    const malformed = { contentKind: 'made_up', producer: { type: 'person' } };
    expect(provenanceOf(human({ kind: 'receipt', memberName: 'Review', provenance: malformed }))).toEqual({ contentKind: 'receipt', producer: { type: 'framework' }, about: 'Review' });
    expect(provenanceOf(human({ author: 'person', provenance: { contentKind: 'note', producer: { type: 'robot' } } }))).toEqual({ contentKind: 'person_message', producer: { type: 'person' } });
  });

  it('toApiMessages returns provenance on every message of an old thread', async () => {
    const api = toApiMessages([
      human({ runId: 'r', taskText: 'hi', author: 'person' }),
      new AIMessage({ content: 'hello' }),
      new ToolMessage({ content: '42', tool_call_id: 'c', name: 'calculator' }),
    ]);
    expect(api.map((m) => m.provenance?.contentKind)).toEqual(['person_message', 'assistant', 'tool_result']);
  });
});
