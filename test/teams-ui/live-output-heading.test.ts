import { describe, expect, it } from 'vitest';
import { liveOutputHeading } from '@/components/live-output/live-output-box';

const live = (over: Partial<Parameters<typeof liveOutputHeading>[0] & object> = {}) => ({ runId: 'r1', text: 'Hello 東京 😀', truncated: false, done: false, retrying: null, ...over });

/*
 * The live output box's heading. What must not happen: a failed attempt's retry shown as writing (or not at all,
 * since its text is gone), a finished run still saying it retries, an empty box.
 */
describe('liveOutputHeading', () => {
  it('says it is retrying, with the attempt, even with no text', () => {
    expect(liveOutputHeading(live({ text: '', retrying: { attempt: 2, maxAttempts: 3 } }))).toBe('Retrying (attempt 2 of 3)…');
    expect(liveOutputHeading(live({ retrying: { attempt: 3, maxAttempts: 3 } }))).toBe('Retrying (attempt 3 of 3)…');
  });

  it('writing, written so far, or nothing at all', () => {
    expect(liveOutputHeading(live())).toBe('Writing…');
    expect(liveOutputHeading(live({ done: true }))).toBe('Written so far');
    expect(liveOutputHeading(live({ done: true, text: '', retrying: { attempt: 2, maxAttempts: 3 } }))).toBeNull();
    expect(liveOutputHeading(live({ text: '' }))).toBeNull();
    expect(liveOutputHeading(undefined)).toBeNull();
  });
});
