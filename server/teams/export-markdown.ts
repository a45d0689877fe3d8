import 'server-only';

/**
 * Markdown that untrusted text can't restructure. Everything a person or a model wrote is either one escaped line
 * (names, titles: every ASCII punctuation character backslash-escaped, line breaks folded, so no `#`, `*`, `[`, `<`
 * or backtick acts) or a fenced block whose fence is longer than any backtick run inside it (CommonMark closes a
 * fence only with at least as many backticks), so a result holding "# heading" or ``` stays text in its block.
 */

const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/g;

/** One line of literal text for a heading, list item or table of facts. */
export function inline(text: string): string {
  return text
    .replace(/[\r\n\u2028\u2029]+/g, ' ')
    .replace(ASCII_PUNCTUATION, (c) => `\\${c}`)
    .trim();
}

/** A fenced block holding `text` verbatim. */
export function fenced(text: string): string {
  const longestRun = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  const body = text.replace(/\r\n?/g, '\n');
  return `${fence}text\n${body}${body.endsWith('\n') ? '' : '\n'}${fence}\n`;
}
