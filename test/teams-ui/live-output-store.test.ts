import { describe, expect, it } from 'vitest';
import { clearLiveOutput, jobOutputKey, parseOutputPush, runLiveOutput, runOutputKey, setLiveOutput, type LiveOutput } from '@/components/live-output/store';

const team = { field: 'teamId' as const, id: 't1' };
const msg = (data: Record<string, unknown>) => JSON.stringify({ teamId: 't1', jobId: 'j1', runId: 'r1', text: 'Hello', truncated: false, done: false, ...data });

describe('an output message as the page reads it', () => {
  it('keeps the text as text, with its flags', () => {
    expect(parseOutputPush(msg({ text: '<img src=x onerror=alert(1)>', truncated: true }), team)).toEqual({
      jobId: 'j1',
      runId: 'r1',
      text: '<img src=x onerror=alert(1)>',
      truncated: true,
      done: false,
      retrying: null,
    });
  });

  it('reads a retry notice only as two small whole numbers in order (1 to 100)', () => {
    const retrying = (value: unknown) => parseOutputPush(msg({ text: '', retrying: value }), team)?.retrying;
    expect(retrying({ attempt: 2, maxAttempts: 3 })).toEqual({ attempt: 2, maxAttempts: 3 });
    expect(retrying({ attempt: 100, maxAttempts: 100 })).toEqual({ attempt: 100, maxAttempts: 100 });
    expect(retrying({ attempt: 101, maxAttempts: 101 })).toBeNull();
    expect(retrying({ attempt: 4, maxAttempts: 3 })).toBeNull();
    expect(retrying({ attempt: 0, maxAttempts: 3 })).toBeNull();
    expect(retrying({ attempt: 1.5, maxAttempts: 3 })).toBeNull();
    expect(retrying({ attempt: '2', maxAttempts: '3' })).toBeNull();
    expect(retrying('<b>2 of 3</b>')).toBeNull();
    expect(retrying(undefined)).toBeNull();
  });

  it("ignores another team's or conversation's message, and anything malformed", () => {
    expect(parseOutputPush(msg({ teamId: 't2' }), team)).toBeNull();
    expect(parseOutputPush(msg({}), { field: 'conversationId', id: 'c1' })).toBeNull();
    expect(parseOutputPush(msg({ text: 42 }), team)).toBeNull();
    expect(parseOutputPush(msg({ runId: null }), team)).toBeNull();
    expect(parseOutputPush('{not json', team)).toBeNull();
    expect(parseOutputPush('null', team)).toBeNull();
  });

  it('reads a conversation message (no job) against its conversation', () => {
    const raw = JSON.stringify({ conversationId: 'c1', runId: 'r9', text: 'So far', truncated: false, done: true });
    expect(parseOutputPush(raw, { field: 'conversationId', id: 'c1' })).toEqual({ jobId: null, runId: 'r9', text: 'So far', truncated: false, done: true, retrying: null });
  });
});

describe("a run's live output, for a view that knows only the run (its Steps)", () => {
  const out = (runId: string, text: string): LiveOutput => ({ runId, text, truncated: false, done: false, retrying: null });

  it("is found under a job's key or a conversation run's, follows the job's next run, and goes when cleared", () => {
    setLiveOutput(jobOutputKey('j9'), out('run-a', 'first'));
    setLiveOutput(runOutputKey('run-c'), out('run-c', 'chat'));
    expect(runLiveOutput('run-a')?.text).toBe('first');
    expect(runLiveOutput('run-c')?.text).toBe('chat');
    // The job's next run takes its key: the earlier run has no output any more.
    setLiveOutput(jobOutputKey('j9'), out('run-b', 'second'));
    expect(runLiveOutput('run-a')).toBeUndefined();
    expect(runLiveOutput('run-b')?.text).toBe('second');
    clearLiveOutput(jobOutputKey('j9'));
    clearLiveOutput(runOutputKey('run-c'));
    expect(runLiveOutput('run-b')).toBeUndefined();
    expect(runLiveOutput('run-c')).toBeUndefined();
  });
});
