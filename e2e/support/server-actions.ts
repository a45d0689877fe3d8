import type { Page, Request } from '@playwright/test';

/**
 * The browser's writes are server actions: a POST to the page's own URL carrying a `Next-Action` header, whose
 * body is the action's arguments (React's encoding, a JSON array when they are plain JSON). The action id in the
 * header is opaque, so a call is recognised by a field only its arguments carry (e.g. `draftKey` for a team
 * request, `answerKey` for an answer).
 */
export function isActionCall(r: Request, field: string): boolean {
  return r.method() === 'POST' && r.headers()['next-action'] !== undefined && (r.postData() ?? '').includes(`"${field}"`);
}

/** Server-action calls whose arguments carry `field`, recorded so a test can prove none (or one) was made. */
export function recordActionCalls(page: Page, field: string): Request[] {
  const calls: Request[] = [];
  page.on('request', (r) => {
    if (isActionCall(r, field)) calls.push(r);
  });
  return calls;
}

/** The arguments one recorded server-action call carried. */
export function actionArgs(r: Request): unknown[] {
  const args: unknown = JSON.parse(r.postData() ?? '[]');
  if (!Array.isArray(args)) throw new Error(`not a server action's argument list: ${r.postData()}`);
  return args;
}
