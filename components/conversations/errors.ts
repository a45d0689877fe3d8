/** Human wording for API failures in the chat. */
import { ApiError } from '@/lib/api-client';

export const BUSY_MESSAGE = 'The agent is still working on the previous message. Wait for it to finish (or cancel it), then send again.';

/** Wording for a refused write (a server action: decided by the error code, which has no HTTP status). */
export function sendErrorMessage(err: unknown): string {
  if (!(err instanceof ApiError)) return 'Something went wrong. Your message is kept; try again.';
  if (err.code === 'conversation_busy') return BUSY_MESSAGE;
  if (err.code === 'unauthorized') return 'Your session has ended. Sign in again, then send your message.';
  if (err.code === 'not_found') return 'This conversation no longer exists.';
  if (err.code === 'validation_error' || err.code === 'payload_too_large') {
    const field = err.fields.text ?? err.fields.value ?? err.fields.note ?? Object.values(err.fields)[0];
    return field ?? err.message;
  }
  return err.message || 'Something went wrong. Try again.';
}

/** Wording for a failed load of a page's data. */
export function loadErrorMessage(err: unknown, what: string): string {
  if (err instanceof ApiError) {
    if (err.status === 404) return `${what} was not found. It may have been deleted, or it belongs to another account.`;
    if (err.status === 401) return 'Your session has ended. Sign in again to continue.';
    return err.message;
  }
  return `Could not load ${what.toLowerCase()}.`;
}

/** Retrying cannot fix these, so the query gives up at once. */
export function isPermanentError(err: unknown): boolean {
  return err instanceof ApiError && (err.status === 401 || err.status === 403 || err.status === 404);
}
