import 'server-only';
import { AppError } from './errors';
import { errorResponse } from './route';
import { shownPath } from './shown-path';

/**
 * The methods every API route file answers (docs/decisions/038-method-not-allowed.md). A file exports the ones it
 * takes and gets the rest from `otherMethods`:
 *
 *   export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST }, requireUser);
 *
 * Each method it does not take answers 405 `method_not_allowed` in the API's JSON error shape with an `Allow`
 * header (RFC 9110 §15.5.6), instead of Next's empty 405 without one.
 */
const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type RouteMethod = (typeof ROUTE_METHODS)[number];

/**
 * What the route's own handlers check first, run before the 405 too: `requireUser` (401 without credentials, and
 * the cross-site refusal of cookie writes, server/http/cross-site.ts), `requireAdmin` (404 to members), or
 * `noCredentials` for the public routes. Why: every method of a path answers an unauthenticated caller, a foreign
 * site's cookie write and a member on an admin path alike, as the catch-all for unknown paths does
 * (app/api/[...path]/route.ts); the method list of a path is told only to whom its real methods would answer. It
 * reads no resource: an id in the path, another owner's or a missing one, does not change the answer.
 */
export type Gate = (req: Request) => Promise<unknown>;
export const noCredentials: Gate = async () => undefined;

type Taken = Partial<Record<RouteMethod, (...args: never[]) => unknown>>;
/** The exports `otherMethods` makes: the route methods not taken, HEAD when there is no GET, and OPTIONS. */
type Others<T extends Taken> = Exclude<RouteMethod, keyof T> | (T extends { GET: unknown } ? never : 'HEAD') | 'OPTIONS';
type Answer = (req: Request) => Promise<Response>;

/** Marks a 405 answer, with its Allow list; Symbol.for so that every loaded copy of this module agrees. */
const ALLOW = Symbol.for('ensemble.methodNotAllowed.allow');

/**
 * The handlers for every method a route file does not take, given the ones it does and its gate. Next answers HEAD
 * with GET when there is a GET (so HEAD is allowed then, and a 405 here otherwise), and would answer OPTIONS by
 * listing every export, these 405s included; so OPTIONS is answered here: 204 with the true Allow, after the gate.
 */
export function otherMethods<T extends Taken>(taken: T, gate: Gate): Record<Others<T>, Answer> {
  const takes = ROUTE_METHODS.filter((method) => typeof taken[method] === 'function');
  const allow = [...takes.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method])), 'OPTIONS'];
  const headers = { Allow: allow.join(', ') };

  /** The gate first; an AppError from it (401, 403 cross_site, 404) is the answer instead. */
  const afterGate =
    (answer: (req: Request) => Response): Answer =>
    async (req) => {
      try {
        await gate(req);
      } catch (err) {
        return errorResponse(err);
      }
      return answer(req);
    };
  const notAllowed = afterGate((req) =>
    errorResponse(new AppError(405, 'method_not_allowed', `${req.method} ${shownPath(req)} takes ${takes.join(', ')}`, undefined, headers)),
  );
  Object.defineProperty(notAllowed, ALLOW, { value: allow });
  const options = afterGate(() => new Response(null, { status: 204, headers }));

  const others: Record<string, Answer> = { OPTIONS: options };
  for (const method of [...ROUTE_METHODS, 'HEAD']) {
    if (!allow.includes(method)) others[method] = notAllowed;
  }
  return others as Record<Others<T>, Answer>;
}

/** The Allow list of a 405 answer made by `otherMethods`, or null for any other handler (a real one). */
export function allowOf(handler: unknown): string[] | null {
  return typeof handler === 'function' ? ((handler as { [ALLOW]?: string[] })[ALLOW] ?? null) : null;
}
