import { requireUser } from '@/server/auth/require-user';
import { AppError } from '@/server/http/errors';
import { route } from '@/server/http/route';
import { shownPath } from '@/server/http/shown-path';

/**
 * Every /api path that no route serves (a typo, an old path): the API's own JSON error, as docs/api.md promises for
 * every error, instead of the app's HTML "not found" page. Next matches this catch-all only when no more specific
 * route does. Credentials are checked first, as on every route: 401 without them, 404 with them. It reads nothing.
 * It answers OPTIONS too (HEAD is Next's GET): Next's own OPTIONS would list every method as allowed on a path that
 * has none, and answer an anonymous caller where a real route's OPTIONS asks for credentials (server/http/
 * method-not-allowed.ts), telling it which paths exist.
 */
const noRoute = route(async (req: Request) => {
  await requireUser(req);
  throw new AppError(404, 'not_found', `No API route answers ${req.method} ${shownPath(req)}`);
});

export { noRoute as DELETE, noRoute as GET, noRoute as OPTIONS, noRoute as PATCH, noRoute as POST, noRoute as PUT };
