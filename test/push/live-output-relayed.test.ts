import { describe, expect, it } from 'vitest';
import { pushBus, type LiveOutputChange } from '@/server/push/bus';
import { currentLiveOutput, rememberLiveOutput } from '@/server/push/live-output';

// Live output of a run executing in another process arrives on this process's bus through the push bridge (which
// emits it there directly): a viewer who opens a stream here mid-run must still get the text so far.

const change = (runId: string, text: string, done = false): LiveOutputChange => ({
  ownerId: 'owner-a',
  conversationId: 'c-1',
  runId,
  teamId: null,
  jobId: null,
  text,
  truncated: false,
  done,
});

describe('live output relayed from another process', () => {
  it('is remembered for viewers who come later, and forgotten when its run is done', () => {
    rememberLiveOutput();
    pushBus().emit('liveOutput', change('run-remote', 'Drafting 研究 🚀'));
    expect(currentLiveOutput('owner-a', () => true)).toEqual([change('run-remote', 'Drafting 研究 🚀')]);
    // Another owner sees none of it.
    expect(currentLiveOutput('owner-b', () => true)).toEqual([]);
    pushBus().emit('liveOutput', change('run-remote', 'Drafting 研究 🚀 done', true));
    expect(currentLiveOutput('owner-a', () => true)).toEqual([]);
  });
});
