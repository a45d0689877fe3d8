/**
 * A team's title: "(2) Release" while 2 of its jobs wait for the person's input, "Release" when none do. The page's
 * metadata (rendered on the server) and the workspace's live tab title (use-tab-title.ts) both use it, so the
 * title the server sends already carries the count: hydrating the page's <title> puts the server's text back.
 */
export function teamTitle(teamName: string, needsInput: number): string {
  const count = Number.isFinite(needsInput) && needsInput > 0 ? Math.floor(needsInput) : 0;
  return `${count > 0 ? `(${count}) ` : ''}${teamName}`;
}
