import { useSyncExternalStore } from 'react';

const noSubscription = () => () => {};

/**
 * False while the page is the server's HTML, before its handlers exist: what was typed or chosen then would not reach
 * React. The batch forms keep their controls read-only (or disabled) until it is true, so nothing is lost, and tests
 * that wait for "editable" or "enabled" wait for it.
 */
export const useHydrated = () => useSyncExternalStore(noSubscription, () => true, () => false);
