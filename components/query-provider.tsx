'use client';

import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';

/**
 * The browser's query cache, for the signed-in pages (app/(app)/layout.tsx): the home page and the sign-in and
 * sign-up forms read nothing through TanStack Query, so they don't download it. One client per mounted layout:
 * it survives navigation between signed-in pages.
 */
export function QueryProvider({ children }: { children: ReactNode }) {
  const [client] = useState(
    () => new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false, staleTime: 5_000 } } }),
  );
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
