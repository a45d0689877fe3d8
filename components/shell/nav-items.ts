/** The authenticated app's sections, in header order. */
export const NAV_ITEMS = [
  { href: '/agents', label: 'Agents' },
  { href: '/teams', label: 'Teams' },
  { href: '/conversations', label: 'Conversations' },
  { href: '/batches', label: 'Batches' },
  { href: '/inbox', label: 'Inbox' },
  { href: '/skills', label: 'Skills' },
  { href: '/settings', label: 'Settings' },
] as const;

/** Shown after the others, only to the instance's admins (the page itself answers 404 to anyone else). */
export const ADMIN_NAV_ITEM = { href: '/admin', label: 'Admin' } as const;

/** The header's sections for this person. */
export function navItemsFor({ admin }: { admin: boolean }): readonly { href: string; label: string }[] {
  return admin ? [...NAV_ITEMS, ADMIN_NAV_ITEM] : NAV_ITEMS;
}

/** A section is current on its own path and on every path below it (/agents/new, /agents/1/edit). */
export function isCurrentSection(pathname: string, href: string): boolean {
  return pathname === href || pathname.startsWith(`${href}/`);
}
