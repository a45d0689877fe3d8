import 'server-only';
import { validationError } from './errors';

/**
 * A GET refuses the query parameters it doesn't take (all of them, when `takes` is empty) as a 422 naming each
 * (`fields`, "Unknown field"), as the routes that parse theirs with a strict schema do (docs/api.md, errors): a
 * script's `?limit=10` on a list that has no pages must not be silently ignored and read as if it were honoured.
 * Call it after the caller is known, so a stranger learns nothing new from it.
 */
export function refuseQuery(req: Request, takes: readonly string[] = []): void {
  const names = [...new Set(new URL(req.url).searchParams.keys())].filter((name) => !takes.includes(name));
  if (names.length) throw validationError(Object.fromEntries(names.map((name) => [name, 'Unknown field'])));
}
