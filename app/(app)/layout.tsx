import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { QueryProvider } from '@/components/query-provider';
import { AppHeader } from '@/components/shell/app-header';
import { REQUEST_PATH_HEADER } from '@/lib/request-path';
import { safeCallbackPath } from '@/lib/schemas/auth';
import { isAdmin } from '@/server/admin/access';
import { currentUser } from '@/server/auth/require-user';

/**
 * The signed-in shell. It resolves the user on the server and sends everyone else to sign in, coming back to
 * the page they asked for. Pages and actions below still check the user themselves: a layout is not a boundary.
 */
export default async function AppLayout({ children }: { children: ReactNode }) {
  const user = await currentUser();
  if (!user) {
    const back = safeCallbackPath((await headers()).get(REQUEST_PATH_HEADER));
    redirect(back ? `/sign-in?callbackUrl=${encodeURIComponent(back)}` : '/sign-in');
  }
  return (
    <QueryProvider>
      <div className="flex min-h-screen flex-col">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-sm dark:focus:bg-zinc-900"
        >
          Skip to content
        </a>
        <AppHeader name={user.name} email={user.email} admin={await isAdmin(user.id)} />
        <main id="main" className="mx-auto w-full max-w-6xl min-w-0 flex-1 px-4 py-6 sm:px-6">
          {children}
        </main>
      </div>
    </QueryProvider>
  );
}
