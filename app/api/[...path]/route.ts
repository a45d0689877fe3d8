import { requireUser } from '@/server/auth/require-user';
import { AppError } from '@/server/http/errors';
import { route } from '@/server/http/route';

/**
 * Every /api path that no route serves (a typo, an old path): the API's own JSON error, as docs/api.md promises for
 * every error, instead of the app's HTML "not found" page. Next matches this catch-all only when no more specific
 * route does. Credentials are checked first, as on every route: 401 without them, 404 with them. It reads nothing.
 */
const noRoute = route(async (req: Request) => {
  await requireUser(req);
  const { pathname } = new URL(req.url);
  // The caller's own path, bounded, in a JSON string (never HTML).
  const shown = pathname.length > 200 ? `${pathname.slice(0, 200)}…` : pathname;
  throw new AppError(404, 'not_found', `No API route answers ${req.method} ${shown}`);
});

export { noRoute as DELETE, noRoute as GET, noRoute as PATCH, noRoute as POST, noRoute as PUT };
