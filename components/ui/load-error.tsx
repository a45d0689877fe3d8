'use client';

import type { ReactNode } from 'react';
import { Button } from './button';
import { Alert } from './misc';

/** What LoadError needs of a TanStack query. */
type FailedQuery = { error: Error | null; isFetching: boolean; refetch: () => unknown };

/**
 * The one "Couldn’t load …" alert: what failed, the server's reason, and a Retry that reads again (disabled while it
 * does). `children` says what could not be loaded ("Couldn’t load your teams."); `detail` replaces the error's own
 * message where a screen words it itself.
 */
export function LoadError({ query, children, detail }: { query: FailedQuery; children: ReactNode; detail?: ReactNode }) {
  return (
    <Alert
      action={
        <Button variant="secondary" size="sm" onClick={() => void query.refetch()} disabled={query.isFetching}>
          Retry
        </Button>
      }
    >
      {children} {detail ?? query.error?.message}
    </Alert>
  );
}
