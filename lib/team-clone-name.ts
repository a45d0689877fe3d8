import { LIMITS } from './limits';
import { teamNameKey } from './team-name';
import { measureText } from './text-bounds';

/**
 * The name a clone is offered: "Release" → "Release (2)", "Release (2)" → "Release (3)", the base cut (by code
 * points, never inside an emoji) so the result still fits LIMITS.team.name. With the owner's team names (`taken`,
 * compared by teamNameKey), the first number not already in use: a second clone of "Release" is offered "Release (3)".
 */
export function cloneName(name: string, taken: Iterable<string> = []): string {
  const trimmed = name.trim();
  const numbered = /^(.*\S)\s\((\d{1,6})\)$/u.exec(trimmed);
  const base = numbered ? numbered[1]! : trimmed;
  const keys = new Set([...taken].map(teamNameKey));
  // One more than there are names is always enough to find a free number.
  for (let n = numbered ? Number(numbered[2]) + 1 : 2, tries = 0; ; n++, tries++) {
    const candidate = withSuffix(base, ` (${n})`);
    if (!keys.has(teamNameKey(candidate)) || tries > keys.size) return candidate;
  }
}

function withSuffix(base: string, suffix: string): string {
  const chars = [...base];
  while (chars.length && measureText(chars.join('') + suffix, LIMITS.team.name).over) chars.pop();
  return (chars.join('').trimEnd() || 'Team') + suffix;
}
