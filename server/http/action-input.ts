import 'server-only';
import type { z } from 'zod';
import { LIMITS } from '@/lib/limits';
import { hasLoneSurrogate } from '@/lib/text-bounds';
import { validationError } from './errors';
import { parseOrThrow } from './validation';

/**
 * Validate a server action's argument with the route's schema. React's action encoding carries more than JSON
 * (Date, Map, Set, BigInt, …), so the argument must first be plain JSON as readJson would have produced it:
 * null, booleans, finite numbers, well-formed strings, arrays and plain objects (an undefined property counts as
 * absent), nested at most LIMITS.jsonMaxDepth deep (an iterative walk: nothing recursive sees the shape).
 * Anything else is 422.
 */
export function actionInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const problem = notPlainJson(value);
  if (problem) throw validationError({ _: problem });
  return parseOrThrow(schema, value);
}

/** An id argument: anything but a string is no id, which answers not_found like a missing one. */
export const actionId = (value: unknown): string => (typeof value === 'string' ? value : '');

function notPlainJson(value: unknown): string | null {
  const stack: Array<{ item: unknown; depth: number }> = [{ item: value, depth: 0 }];
  while (stack.length) {
    const { item, depth } = stack.pop()!;
    if (item === null || typeof item === 'boolean') continue;
    if (typeof item === 'number') {
      if (!Number.isFinite(item)) return 'Numbers must be finite';
      continue;
    }
    if (typeof item === 'string') {
      if (hasLoneSurrogate(item)) return 'Text contains an unpaired UTF-16 surrogate';
      continue;
    }
    if (typeof item !== 'object') return 'Must be plain JSON';
    if (depth + 1 > LIMITS.jsonMaxDepth) return `JSON nests deeper than ${LIMITS.jsonMaxDepth} levels`;
    if (Array.isArray(item)) {
      for (const v of item) stack.push({ item: v, depth: depth + 1 });
      continue;
    }
    const proto = Object.getPrototypeOf(item);
    if (proto !== Object.prototype && proto !== null) return 'Must be plain JSON';
    for (const [k, v] of Object.entries(item)) {
      if (hasLoneSurrogate(k)) return 'Text contains an unpaired UTF-16 surrogate';
      // An undefined property is an absent one, as JSON.stringify would have sent it ({ note: undefined }).
      if (v !== undefined) stack.push({ item: v, depth: depth + 1 });
    }
  }
  return null;
}
