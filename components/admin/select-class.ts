/** The Admin forms' native select, styled as the kit's Input. */
export const selectClass =
  'h-10 w-full min-w-0 rounded-md border border-zinc-300 bg-white px-3 text-sm text-zinc-900 focus:outline-2 focus:outline-indigo-500 ' +
  'dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100';
