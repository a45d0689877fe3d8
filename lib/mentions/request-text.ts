/**
 * The text a composer sends as a request once its recipients are picked as chips: without the spaces or tabs at its
 * very start (the space a person types after picking a mention, which would otherwise open the request, its title and
 * exports). Later lines, and any text after the first character, are left as written.
 */
export function requestText(text: string): string {
  return text.replace(/^[ \t]+/, '');
}
