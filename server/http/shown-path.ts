import 'server-only';

const SHOWN_PATH_CHARS = 200;

/**
 * The request's path as the URL holds it (non-ASCII percent-encoded), cut to its first 200 characters: error
 * messages echo the caller's own path, bounded, in a JSON string (never HTML).
 */
export function shownPath(req: Request): string {
  const { pathname } = new URL(req.url);
  return pathname.length > SHOWN_PATH_CHARS ? `${pathname.slice(0, SHOWN_PATH_CHARS)}…` : pathname;
}
