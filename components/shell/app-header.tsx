'use client';

import Link from 'next/link';
import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { inboxCountQuery } from '@/components/inbox/queries';
import { AccountLabel } from './account-label';
import { CloseIcon, MenuIcon } from './icons';
import { NavLinks } from './nav-links';
import { SignOutButton } from './sign-out-button';
import { ThemeSwitch } from './theme-switch';

/**
 * The signed-in header. From the `lg` breakpoint the section links sit in the bar; below it they move into a
 * menu panel (with who is signed in and sign-out), so nothing overflows from 360 px to a tablet's 1023 px — with
 * eight sections, whatever the browser's fonts (a wide sans such as DejaVu took a 768 px bar 20 px past its edge).
 * Who is signed in (AccountLabel: the name, else the email) sits in the bar from `xl`, where it has room. The menu
 * is a plain disclosure (a button with aria-expanded that shows a panel): no UI library in the layout every page
 * loads. Like the kit's Menu, Escape (on the button or anywhere in the open panel) closes it and gives focus back
 * to the button.
 */
export function AppHeader({ name, email, admin = false }: { name?: string | null; email: string; admin?: boolean }) {
  const [open, setOpen] = useState(false);
  // What waits in the Inbox: the nav's live count (its row copy holds the stream on every width), from the cache.
  const inboxCount = useQuery(inboxCountQuery()).data;
  const panelId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const close = () => setOpen(false);
  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (event.key !== 'Escape' || !open) return;
    event.preventDefault();
    close();
    buttonRef.current?.focus();
  };
  return (
    <header onKeyDown={onKeyDown} className="sticky top-0 z-30 border-b border-zinc-200 bg-white/95 backdrop-blur dark:border-zinc-800 dark:bg-zinc-950/95">
        <div className="mx-auto flex h-14 w-full max-w-6xl items-center gap-3 px-4 sm:px-6">
          <Link
            href="/agents"
            className="shrink-0 rounded text-base font-semibold tracking-tight text-zinc-900 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-zinc-50"
          >
            Ensemble
          </Link>
          <nav aria-label="Main" className="hidden lg:block">
            <NavLinks layout="row" admin={admin} />
          </nav>
          <div className="ml-auto flex min-w-0 items-center gap-2">
            <ThemeSwitch />
            <AccountLabel name={name} email={email} testId className="hidden max-w-56 xl:flex" />
            <div className="hidden lg:block">
              <SignOutButton />
            </div>
            <button
              ref={buttonRef}
              type="button"
              className="relative inline-flex size-9 items-center justify-center rounded-md text-zinc-700 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-indigo-500 lg:hidden dark:text-zinc-200 dark:hover:bg-zinc-800"
              // Closed, the menu hides the Inbox link and its count: the button names what waits.
              aria-label={open ? 'Close menu' : inboxCount ? `Open menu, ${inboxCount} waiting` : 'Open menu'}
              aria-expanded={open}
              aria-controls={panelId}
              onClick={() => setOpen((o) => !o)}
            >
              {open ? <CloseIcon /> : <MenuIcon />}
              {inboxCount ? (
                <span aria-hidden className="absolute -top-1.5 -right-1.5 rounded-full bg-amber-500 px-1.5 text-xs font-semibold text-white tabular-nums">
                  {inboxCount}
                </span>
              ) : null}
            </button>
          </div>
        </div>
        <div id={panelId} hidden={!open} className="border-t border-zinc-200 px-4 pt-2 pb-4 lg:hidden dark:border-zinc-800">
          <nav aria-label="Main">
            <NavLinks layout="column" onNavigate={() => close()} admin={admin} />
          </nav>
          <div className="mt-3 flex flex-wrap items-center justify-between gap-2 border-t border-zinc-200 pt-3 dark:border-zinc-800">
            <AccountLabel name={name} email={email} className="flex-1" />
            <SignOutButton />
          </div>
        </div>
    </header>
  );
}
