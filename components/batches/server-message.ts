import { ApiError } from '@/lib/api-client';

/**
 * The server's refusal of a batch in words, with the field it names (the template, a limit). A row's message names
 * its row already, counted from 1 ("Row 1: missing …"), so its path (`items.0`, the array's index) is left out: shown
 * beside it, a person would read two different numbers for one row.
 */
export function serverMessage(error: Error): string {
  if (!(error instanceof ApiError)) return error.message;
  const fields = Object.entries(error.fields).map(([field, message]) => (/^items\.\d+$/.test(field) ? message : `${field}: ${message}`));
  return fields.length ? `${error.message} (${fields.join('; ')})` : error.message;
}
