/** The authenticated app's sections, in header order. */
export const NAV_ITEMS = [
  { href: '/agents', label: 'Agents' },
  { href: '/teams', label: 'Teams' },
  { href: '/conversations', label: 'Conversations' },
  { href: '/settings', label: 'Settings' },
] as const;

/** A section is current on its own path and on every path below it (/agents/new, /agents/1/edit). */
export function isCurrentSection(pathname: string, href: string): boolean {
  return pathname === href || pathname.startsWith(`${href}/`);
}
