'use client';

import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { LoadError } from './load-error';
import { Spinner } from './misc';

type Props<T> = {
  query: UseQueryResult<T, Error>;
  /** The Spinner's words while the first answer is on its way ("Loading teams…"). */
  loading: string;
  /** What could not be loaded, for the LoadError and its Retry ("Couldn’t load your teams."). */
  failed: ReactNode;
  children: (data: T) => ReactNode;
};

/**
 * A list's or a field's query, in its three states: the Spinner until its first answer, the one LoadError when it
 * failed, else `children` given its data. A view that keeps showing stale data after a failed refetch checks the
 * query itself instead.
 */
export function QueryGate<T>({ query, loading, failed, children }: Props<T>) {
  if (query.isPending) return <Spinner label={loading} />;
  if (query.isError) return <LoadError query={query}>{failed}</LoadError>;
  return <>{children(query.data)}</>;
}
