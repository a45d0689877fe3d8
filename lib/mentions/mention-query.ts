/**
 * `@` mention detection for the one @mention composer (components/mentions, through ./picker). A mention starts
 * with `@` at the start of the text or after whitespace and runs to the caret. A query may contain spaces only while it still prefixes some member name
 * ("@Research L" keeps the list open for "Research Lead"), so ordinary text after an `@` closes it.
 */

export type MentionQuery = { start: number; end: number; query: string };

const MAX_QUERY = 80;
const isSpace = (ch: string | undefined) => ch !== undefined && /\s/.test(ch);

export function findMentionQuery(text: string, caret: number, names: readonly string[] = []): MentionQuery | null {
  if (caret < 0 || caret > text.length) return null;
  const floor = Math.max(0, caret - MAX_QUERY - 1);
  for (let i = caret - 1; i >= floor; i--) {
    const ch = text[i];
    if (ch === '\n' || ch === '\r') return null;
    if (ch !== '@') continue;
    if (i > 0 && !isSpace(text[i - 1])) return null;
    const query = text.slice(i + 1, caret);
    if (/\s/.test(query)) {
      const q = query.toLowerCase();
      if (!names.some((name) => name.toLowerCase().startsWith(q))) return null;
    }
    return { start: i, end: caret, query };
  }
  return null;
}

/** Members whose name matches the query case-insensitively: prefix matches first, then any substring. */
export function filterByName<T extends { name: string }>(items: readonly T[], query: string): T[] {
  const q = query.trim().toLowerCase();
  if (q === '') return [...items];
  const prefix: T[] = [];
  const inner: T[] = [];
  for (const item of items) {
    const name = item.name.toLowerCase();
    if (name.startsWith(q)) prefix.push(item);
    else if (name.includes(q)) inner.push(item);
  }
  return [...prefix, ...inner];
}

/** Remove the `@query` text after picking; one surrounding space is dropped so no double space remains. */
export function removeMentionQuery(text: string, m: MentionQuery): { text: string; caret: number } {
  const before = text.slice(0, m.start);
  let after = text.slice(m.end);
  if ((before === '' || isSpace(before[before.length - 1])) && after.startsWith(' ')) after = after.slice(1);
  return { text: before + after, caret: before.length };
}
