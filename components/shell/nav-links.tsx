'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { InboxNavLabel } from '@/components/inbox/inbox-nav-label';
import { cn } from '@/components/ui/cn';
import { isCurrentSection, navItemsFor } from './nav-items';

/**
 * The section links; the current one carries aria-current="page". `onNavigate` lets the mobile menu close.
 * `admin` adds the Admin section (a convenience only: the admin page and routes check the role themselves).
 */
export function NavLinks({ layout, onNavigate, admin = false }: { layout: 'row' | 'column'; onNavigate?: () => void; admin?: boolean }) {
  const pathname = usePathname() ?? '';
  return (
    <ul className={cn('flex', layout === 'row' ? 'items-center gap-1' : 'flex-col gap-1')}>
      {navItemsFor({ admin }).map(({ href, label }) => {
        const current = isCurrentSection(pathname, href);
        return (
          <li key={href}>
            <Link
              href={href}
              aria-current={current ? 'page' : undefined}
              onClick={onNavigate}
              className={cn(
                // Eight sections (with Admin) fit a 1024 px bar, the email beside them from `xl`, with the tighter padding below it.
                'block rounded-md py-2 text-sm font-medium whitespace-nowrap',
                layout === 'row' ? 'px-2 xl:px-3' : 'px-3',
                'focus-visible:outline-2 focus-visible:outline-indigo-500',
                current
                  ? 'bg-zinc-100 text-zinc-900 dark:bg-zinc-800 dark:text-zinc-50'
                  : 'text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 dark:text-zinc-300 dark:hover:bg-zinc-800 dark:hover:text-zinc-50',
              )}
            >
              {/* The Inbox says how much waits (ADR 056); the row's copy follows the stream, the phone menu's shares it. */}
              {href === '/inbox' ? <InboxNavLabel follow={layout === 'row'} /> : label}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
