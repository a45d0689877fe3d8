import 'server-only';
import { approvalDecisionSchema } from '@/lib/schemas/conversation';
import { validationError } from '@/server/http/errors';
import { zodFields } from '@/server/http/validation';

/**
 * A person's JSON response to a paused run that did not ask a question (a team request's respond, a batch item's
 * answer): an approval takes `{ approved, note? }`, checked here so a refusal names the field as the API takes it
 * (`response`, `response.approved`); another interrupt takes any JSON. `subject` begins the refusal ("This item",
 * "This request"), so a person answering with text hears what the pause wants.
 */
export function checkInterruptResponse(subject: string, approval: boolean, response: unknown): void {
  if (response === undefined) {
    throw validationError({
      response: approval
        ? `${subject} waits for an approval: send response { "approved": true or false, "note"?: text }, not an answer`
        : `${subject} is paused at an interrupt: respond with JSON`,
    });
  }
  if (!approval) return;
  const decision = approvalDecisionSchema.safeParse(response);
  if (!decision.success) {
    throw validationError(Object.fromEntries(Object.entries(zodFields(decision.error)).map(([k, v]) => [k === '_' ? 'response' : `response.${k}`, v])));
  }
}
