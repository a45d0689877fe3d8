import { ApiError } from './api-client';

/** A refusal as the API sends it in its error body: a stable code, a sentence, and one message per bad field. */
export type ActionError = { code: string; message: string; fields?: Record<string, string> };

/** What every server action answers: its data, or the error (code, message, fields) the JSON API would send. */
export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: ActionError };

const NETWORK_MESSAGE = 'Could not reach the server. Check your connection and try again.';

/**
 * A refused server action, thrown so the forms read it like a refused API call (an ApiError with code, message
 * and fields). An action has no HTTP status, so `status` is 0: decide on `code`, never on `status`.
 */
export class ActionFailure extends ApiError {
  constructor(error: ActionError) {
    super(0, error.code, error.message, error.fields ?? {});
    this.name = 'ActionFailure';
  }
}

/**
 * Call a server action and hand back its result, with a thrown call (network, server crash) as the refusal
 * `network_error`: one shape for every way a call can end, for forms that read the result themselves.
 */
export async function actionResult<T>(call: () => Promise<ActionResult<T>>): Promise<ActionResult<T>> {
  try {
    return await call();
  } catch {
    return { ok: false, error: { code: 'network_error', message: NETWORK_MESSAGE } };
  }
}

/**
 * Call a server action and hand back its data, for TanStack Query's mutationFn: a refusal throws ActionFailure,
 * a thrown action (network, server crash) throws ActionFailure `network_error`.
 */
export async function actionData<T>(call: () => Promise<ActionResult<T>>): Promise<T> {
  const result = await actionResult(call);
  if (!result.ok) throw new ActionFailure(result.error);
  return result.data;
}
