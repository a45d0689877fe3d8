import { LIMITS } from './limits';
import { measureText } from './text-bounds';

/**
 * The name a clone is offered: "Release" → "Release (2)", "Release (2)" → "Release (3)", the base cut (by code
 * points, never inside an emoji) so the result still fits LIMITS.team.name.
 */
export function cloneName(name: string): string {
  const trimmed = name.trim();
  const numbered = /^(.*\S)\s\((\d{1,6})\)$/u.exec(trimmed);
  const base = numbered ? numbered[1]! : trimmed;
  const suffix = ` (${numbered ? Number(numbered[2]) + 1 : 2})`;
  const chars = [...base];
  while (chars.length && measureText(chars.join('') + suffix, LIMITS.team.name).over) chars.pop();
  return (chars.join('').trimEnd() || 'Team') + suffix;
}
