'use client';

import { ThemeProvider } from 'next-themes';
import type { ReactNode } from 'react';

/**
 * What every page needs, signed in or not: the theme. Keep it that small — whatever is added here ships with the
 * home page and the sign-in form too (their budgets: docs/performance.md). TanStack Query lives in the signed-in
 * layout (QueryProvider), the only pages that read through it.
 * nonce: this request's CSP nonce (proxy.ts), for next-themes' inline script that sets the theme before paint.
 */
export function Providers({ children, nonce }: { children: ReactNode; nonce?: string }) {
  return (
    <ThemeProvider nonce={nonce} attribute="class" defaultTheme="system" enableSystem disableTransitionOnChange>
      {children}
    </ThemeProvider>
  );
}
