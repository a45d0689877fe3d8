/**
 * Prism token types to Tailwind colours, light and dark, each ≥ 4.5:1 on the code block's background
 * (zinc-100 / zinc-950). Prism lists a nested token's types outermost first: the innermost type with a colour wins;
 * a token with none keeps the plain text colour.
 */
const CLASSES: Record<string, string> = {
  comment: 'italic text-zinc-600 dark:text-zinc-400',
  prolog: 'text-zinc-600 dark:text-zinc-400',
  doctype: 'text-zinc-600 dark:text-zinc-400',
  keyword: 'text-purple-700 dark:text-purple-300',
  'attr-name': 'text-amber-800 dark:text-amber-300',
  builtin: 'text-purple-700 dark:text-purple-300',
  string: 'text-emerald-800 dark:text-emerald-300',
  char: 'text-emerald-800 dark:text-emerald-300',
  'attr-value': 'text-emerald-800 dark:text-emerald-300',
  regex: 'text-rose-700 dark:text-rose-300',
  number: 'text-amber-800 dark:text-amber-300',
  boolean: 'text-amber-800 dark:text-amber-300',
  constant: 'text-amber-800 dark:text-amber-300',
  function: 'text-blue-700 dark:text-blue-300',
  'class-name': 'text-teal-700 dark:text-teal-300',
  tag: 'text-rose-700 dark:text-rose-300',
  property: 'text-sky-800 dark:text-sky-300',
  operator: 'text-zinc-700 dark:text-zinc-300',
  punctuation: 'text-zinc-600 dark:text-zinc-400',
  title: 'font-semibold',
  bold: 'font-semibold',
  italic: 'italic',
};

export function tokenClass(types: readonly string[]): string | undefined {
  for (let i = types.length - 1; i >= 0; i--) {
    const found = CLASSES[types[i]!];
    if (found) return found;
  }
  return undefined;
}
