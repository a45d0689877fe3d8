import type { Metadata, Viewport } from 'next';
import { headers } from 'next/headers';
import type { ReactNode } from 'react';
import { Providers } from '@/components/providers';
import { NONCE_HEADER } from '@/lib/request-path';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Ensemble', template: '%s · Ensemble' },
  description: 'Your Custom Agents, working together as a team.',
};

export const viewport: Viewport = { width: 'device-width', initialScale: 1 };

// Reading the request's nonce (proxy.ts) makes every page render per request, which a nonce needs anyway.
export default async function RootLayout({ children }: { children: ReactNode }) {
  const nonce = (await headers()).get(NONCE_HEADER) ?? undefined;
  return (
    <html lang="en" suppressHydrationWarning>
      <body className="min-h-screen bg-zinc-50 text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">
        <Providers nonce={nonce}>{children}</Providers>
      </body>
    </html>
  );
}
