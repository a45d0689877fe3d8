import type { ParsedList } from './parse-list';

/** Rows the preview shows: enough to see the columns line up. */
export const PREVIEW_ROWS = 5;
/** A long value is cut in the preview (the batch gets it whole). */
const CELL_CHARS = 80;

const cut = (value: string) => {
  const chars = [...value];
  return chars.length > CELL_CHARS ? `${chars.slice(0, CELL_CHARS).join('')}…` : value;
};

/**
 * What the list was read as: its format, row count and columns, and its first rows in a table (scrolls sideways on
 * a phone; focusable so a keyboard can scroll it too). Values are untrusted text, shown as text.
 */
export function ListPreview({ list }: { list: ParsedList }) {
  const shown = list.rows.slice(0, PREVIEW_ROWS);
  return (
    <section aria-label="Preview of the list" className="space-y-2">
      <p className="text-sm text-zinc-700 dark:text-zinc-300">
        Read as {list.format === 'csv' ? 'CSV' : 'JSONL'}: {list.rows.length.toLocaleString('en-US')} {list.rows.length === 1 ? 'row' : 'rows'},{' '}
        {list.columns.length} {list.columns.length === 1 ? 'column' : 'columns'}.
        {list.rows.length > shown.length ? ` The first ${shown.length} are shown.` : ''}
      </p>
      <div role="region" aria-label="First rows" tabIndex={0} className="max-w-full overflow-x-auto rounded-md border border-zinc-200 dark:border-zinc-800">
        <table className="min-w-full text-left text-xs">
          <thead className="bg-zinc-50 dark:bg-zinc-800/60">
            <tr>
              <th scope="col" className="px-2 py-1.5 font-medium text-zinc-600 dark:text-zinc-300">
                #
              </th>
              {list.columns.map((column) => (
                <th key={column} scope="col" className="px-2 py-1.5 font-mono font-medium whitespace-nowrap text-zinc-800 dark:text-zinc-100">
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((row, i) => (
              <tr key={i} className="border-t border-zinc-200 dark:border-zinc-800">
                <th scope="row" className="px-2 py-1.5 font-normal whitespace-nowrap text-zinc-500 dark:text-zinc-400">
                  {list.rowLabels[i]}
                </th>
                {list.columns.map((column) => (
                  <td key={column} className="max-w-xs px-2 py-1.5 align-top break-words whitespace-pre-wrap text-zinc-800 dark:text-zinc-200">
                    {cut(row[column] ?? '')}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
