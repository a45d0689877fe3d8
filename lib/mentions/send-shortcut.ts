/** What a key press in a composer means: Cmd/Ctrl+Enter sends, plain Enter is a newline (or picks from an open list). */
export function isSendShortcut(e: { key: string; metaKey: boolean; ctrlKey: boolean; isComposing?: boolean }): boolean {
  return e.key === 'Enter' && (e.metaKey || e.ctrlKey) && !e.isComposing;
}
