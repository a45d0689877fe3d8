import { describe, expect, it } from 'vitest';
import { placeRefusal } from '@/components/admin/use-action-call';

const FIELDS = ['name', 'baseUrl'] as const;

describe('placeRefusal: where an Admin form says a refused action', () => {
  it('a shown field’s error goes to its field and the message is not said twice', () => {
    expect(placeRefusal({ code: 'validation_error', message: 'name: Too long', fields: { name: 'Too long' } }, FIELDS)).toEqual({
      fieldErrors: { name: 'Too long' },
      message: null,
    });
  });

  it('only the shown fields are kept; an unshown one beside them is not said at a field that does not exist', () => {
    const placed = placeRefusal({ code: 'validation_error', message: 'm', fields: { baseUrl: 'Bad URL', kind: 'Unknown kind' } }, FIELDS);
    expect(placed).toEqual({ fieldErrors: { baseUrl: 'Bad URL' }, message: null });
  });

  it('a refusal of a field the form does not show, or of none, is said as the message', () => {
    // Must not happen: a refusal that appears nowhere (the form would look as if nothing had been sent).
    expect(placeRefusal({ code: 'validation_error', message: 'kind: Unknown kind', fields: { kind: 'Unknown kind' } }, FIELDS)).toEqual({
      fieldErrors: {},
      message: 'kind: Unknown kind',
    });
    expect(placeRefusal({ code: 'network_error', message: 'Could not reach the server.' }, FIELDS)).toEqual({ fieldErrors: {}, message: 'Could not reach the server.' });
    expect(placeRefusal({ code: 'not_found', message: 'Gone' }, [])).toEqual({ fieldErrors: {}, message: 'Gone' });
  });

  it('a part of a shown field (one header of the Headers lines) is said at that field, naming the part', () => {
    const refusal = {
      code: 'validation_error',
      message: 'headers.X-Ok: Must be ASCII letters, digits, spaces and punctuation',
      fields: { 'headers.X-Ok': 'Must be ASCII letters, digits, spaces and punctuation' },
    };
    expect(placeRefusal(refusal, ['name', 'headers'] as const)).toEqual({
      fieldErrors: { headers: 'X-Ok: Must be ASCII letters, digits, spaces and punctuation' },
      message: null,
    });
    // A field whose name merely starts the same way is not a part of it.
    expect(placeRefusal({ code: 'validation_error', message: 'headersExtra: Bad', fields: { headersExtra: 'Bad' } }, ['headers'] as const)).toEqual({
      fieldErrors: {},
      message: 'headersExtra: Bad',
    });
  });
});
