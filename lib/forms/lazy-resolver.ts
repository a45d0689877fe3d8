import type { FieldValues, Resolver } from 'react-hook-form';

export type LazyResolver<TValues extends FieldValues, TContext = unknown, TOutput = TValues> = Resolver<TValues, TContext, TOutput> & {
  /** Start loading now (e.g. when the form first gets focus), so the first submit doesn't wait for it. */
  preload: () => void;
};

/**
 * A react-hook-form resolver loaded on first use. A form's zod schema (and zod with it, ~31 kB gzip) is then not
 * part of the page's first load: the page shows and works before it, and the check runs once it has arrived
 * (ADR 053). `load` runs at most once while it succeeds; a failed load (offline) is tried again by the next check.
 * The server checks every submission again, so a form that can't load its resolver still can't send bad data.
 */
export function lazyResolver<TValues extends FieldValues, TContext = unknown, TOutput = TValues>(
  load: () => Promise<Resolver<TValues, TContext, TOutput>>,
): LazyResolver<TValues, TContext, TOutput> {
  let loading: Promise<Resolver<TValues, TContext, TOutput>> | null = null;
  const get = () => {
    loading ??= load().catch((error: unknown) => {
      loading = null;
      throw error;
    });
    return loading;
  };
  const resolver: Resolver<TValues, TContext, TOutput> = async (values, context, options) => (await get())(values, context, options);
  return Object.assign(resolver, {
    preload: () => {
      // A failed preload is not an error yet: the first check loads again and reports it there.
      get().catch(() => undefined);
    },
  });
}
