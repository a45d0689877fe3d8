import { LIMITS } from './limits';
import { truncateText } from './text';

const { maxChars, maxBytes } = LIMITS.memberName;

/** Cut a name to the member-name bounds without splitting a character. */
function bound(name: string): string {
  return truncateText(name, maxBytes, maxChars).text.trim();
}

/**
 * Member names derived from agent names: trimmed, cut to ≤ 80 characters and ≤ 160 bytes, and made unique
 * (case-insensitively) with " (2)", " (3)" — the base is shortened so the suffix still fits the bounds.
 */
export function deriveMemberNames(agentNames: readonly string[]): string[] {
  const taken = new Set<string>();
  return agentNames.map((raw) => {
    const base = bound(raw.trim()) || 'Member';
    let name = base;
    for (let n = 2; taken.has(name.toLowerCase()); n++) {
      const suffix = ` (${n})`;
      const room = truncateText(base, maxBytes - suffix.length, maxChars - suffix.length).text.trimEnd();
      name = room + suffix;
    }
    taken.add(name.toLowerCase());
    return name;
  });
}
