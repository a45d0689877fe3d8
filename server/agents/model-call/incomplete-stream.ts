import 'server-only';

const NAME = 'IncompleteStreamError';

/** A provider's stream ended before its answer did (no finish reason): the call is tried again, as for a reset. */
export class IncompleteStreamError extends Error {
  constructor() {
    super('The provider ended the stream before the answer was complete');
    this.name = NAME;
  }
}

// By name: route bundles may each load their own copy of this module.
export const isIncompleteStream = (error: unknown): boolean => (error as { name?: unknown } | null)?.name === NAME;
