'use client';

import { useLiveOutput, type LiveOutput } from './store';

/** The box's heading, or null when there is nothing to show (no text, and no retry under way). */
export function liveOutputHeading(live: LiveOutput | undefined): string | null {
  const retrying = live && !live.done ? live.retrying : null;
  if (retrying) return `Retrying (attempt ${retrying.attempt} of ${retrying.maxAttempts})…`;
  if (!live?.text) return null;
  if (live.done) return 'Written so far';
  return live.tool ? `Running ${live.tool.tool} of MCP server ${live.tool.server}…` : 'Writing…';
}

/**
 * What an agent is writing right now, as plain text (a React text node: never HTML). Not a live region: a screen
 * reader would read every few words aloud; the group says it is busy instead, and the finished work's status and
 * result are announced where they always were. The newest text stays in view (a column-reverse scroller starts at
 * its end); a leading "…" says older text was dropped (the server keeps the newest 2,000 characters). While the
 * model call is tried again after a transient failure it says so ("Retrying (attempt 2 of 3)…"): the failed
 * attempt's text is gone, and the new attempt's replaces the note. While an MCP tool reports progress the box is that
 * tool's ("Running lookup of MCP server docs…"), not "Writing…", until the model writes again.
 */
export function LiveOutputBox({ outputKey, author, className = 'mt-3' }: { outputKey: string; author: string; className?: string }) {
  const live = useLiveOutput(outputKey);
  const heading = liveOutputHeading(live);
  if (!live || heading === null) return null;
  return (
    <div className={`${className} rounded-md border border-dashed border-indigo-200 bg-indigo-50/60 p-2 dark:border-indigo-900 dark:bg-indigo-950/40`}>
      <p className="flex items-center gap-1.5 text-xs font-medium text-indigo-800 dark:text-indigo-200">
        {live.done ? null : <span aria-hidden className="inline-block size-1.5 rounded-full bg-indigo-500 motion-safe:animate-pulse" />}
        {heading}
      </p>
      {live.text ? (
        <div
          role="group"
          tabIndex={0}
          aria-label={`Live output from ${author}`}
          aria-busy={!live.done}
          className="mt-1 flex max-h-40 flex-col-reverse overflow-y-auto rounded focus-visible:outline-2 focus-visible:outline-indigo-500"
        >
          <p className="whitespace-pre-wrap break-words text-sm text-zinc-800 dark:text-zinc-200">
            {live.truncated ? '…' : null}
            {live.text}
          </p>
        </div>
      ) : null}
    </div>
  );
}
