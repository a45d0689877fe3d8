import { describe, expect, it } from 'vitest';
import { splitFieldErrors } from '@/components/agents/server-errors';

describe('agent form: server field errors', () => {
  it('puts each field error on its top-level form field and the rest above the form', async () => {
    expect(
      splitFieldErrors({
        name: 'You already have an agent named "X"',
        'toolGroups.0': 'Each tool group must be text',
        maxTurns: 'Must be a whole number from 1 to 150',
        owner: 'Unknown field',
        _: 'Text contains an unpaired UTF-16 surrogate',
      }),
    ).toEqual({
      byField: {
        name: 'You already have an agent named "X"',
        toolGroups: 'Each tool group must be text',
        maxTurns: 'Must be a whole number from 1 to 150',
      },
      other: ['owner: Unknown field', 'Text contains an unpaired UTF-16 surrogate'],
    });
  });

  it('keeps the first message when a field has several', async () => {
    expect(splitFieldErrors({ 'approvalTools.0': 'first', 'approvalTools.1': 'second' }).byField).toEqual({ approvalTools: 'first' });
  });
});
