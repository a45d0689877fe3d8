import { describe, expect, it } from 'vitest';
import { turnStepsHeading } from '@/components/runs/turn-steps-heading';

describe("a turn's Steps heading", () => {
  it('names the turn by its message, so two open panels never share a name', () => {
    expect(turnStepsHeading('Plan the trip')).toBe('Steps of “Plan the trip”');
    expect(turnStepsHeading('/call calculator {"expression":"6*7"}')).not.toBe(turnStepsHeading('/call calculator {"expression":"2+2"}'));
  });

  it('keeps 40 characters at most, counting an emoji or a CJK character once, on one line', () => {
    expect(turnStepsHeading('a'.repeat(40))).toBe(`Steps of “${'a'.repeat(40)}”`);
    expect(turnStepsHeading('a'.repeat(41))).toBe(`Steps of “${'a'.repeat(39)}…”`);
    expect(turnStepsHeading('研'.repeat(41))).toBe(`Steps of “${'研'.repeat(39)}…”`);
    expect(turnStepsHeading('😀'.repeat(40))).toBe(`Steps of “${'😀'.repeat(40)}”`);
    expect(turnStepsHeading('😀'.repeat(41))).toBe(`Steps of “${'😀'.repeat(39)}…”`);
    expect(turnStepsHeading('two\n\nlines')).toBe('Steps of “two lines”');
  });

  it('falls back to the general name for a turn without text', () => {
    expect(turnStepsHeading('  \n ')).toBe('Steps of this turn');
  });
});
