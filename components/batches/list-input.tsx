'use client';

import { useId, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Textarea } from '@/components/ui/input';
import { LIMITS } from '@/lib/limits';
import { formatSize, sizeOverLimit } from './parse-list';
import { listFileText } from './read-list';

type Props = {
  text: string;
  onTextChange: (text: string, fileName: string | null) => void;
  /** The uploaded file's name while its text is in the box (a file's extension says its format). */
  fileName: string | null;
  /** Why the list can't be used, from parse-list / read-list; shown under the box. */
  error: string | null;
  /** Until the page is hydrated (batch-start-form.tsx). */
  readOnly: boolean;
};

const ACCEPT = '.csv,.tsv,.txt,.jsonl,.ndjson,text/csv,text/plain,application/jsonl,application/x-ndjson';

/**
 * The list: pasted into the box, or a .csv/.jsonl file read into the same box, so a refused row is fixed in place
 * and nothing typed is lost. A file over the limit is refused by its size before it is read, and the box keeps
 * what it held.
 */
export function ListInput({ text, onTextChange, fileName, error, readOnly }: Props) {
  const id = useId();
  const fileInput = useRef<HTMLInputElement>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [reading, setReading] = useState(false);

  async function readFile(file: File) {
    setFileError(null);
    if (file.size > LIMITS.batch.listBytes) {
      const shown = sizeOverLimit(file.size, LIMITS.batch.listBytes);
      setFileError(`${file.name} is ${shown.size}; a batch’s list may be at most ${shown.limit}. The box keeps what it held.`);
      return;
    }
    if (file.size === 0) {
      setFileError(`${file.name} is empty. The box keeps what it held.`);
      return;
    }
    setReading(true);
    try {
      const read = listFileText(await file.arrayBuffer(), file.name);
      if (read.ok) onTextChange(read.text, file.name);
      else setFileError(read.message);
    } catch {
      setFileError(`${file.name} could not be read. The box keeps what it held.`);
    } finally {
      setReading(false);
    }
  }

  const shownError = fileError ?? error;
  return (
    <div className="space-y-2">
      <label htmlFor={`${id}-text`} className="block text-sm font-medium text-zinc-800 dark:text-zinc-200">
        List (CSV with a header row, or JSONL)
      </label>
      <Textarea
        id={`${id}-text`}
        value={text}
        readOnly={readOnly}
        onChange={(e) => onTextChange(e.target.value, fileName)}
        rows={8}
        spellCheck={false}
        className="font-mono text-xs"
        placeholder={'title,author\n"Dune","Frank Herbert"'}
        aria-invalid={shownError ? true : undefined}
        aria-describedby={`${id}-hint ${id}-error`}
      />
      <div className="flex flex-wrap items-center gap-2">
        <input
          ref={fileInput}
          id={`${id}-file`}
          type="file"
          accept={ACCEPT}
          // The button below opens it; the input itself stays out of the tab order.
          tabIndex={-1}
          aria-label="List file"
          className="sr-only"
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file) void readFile(file);
          }}
        />
        <Button variant="secondary" size="sm" onClick={() => fileInput.current?.click()} pending={reading} aria-describedby={`${id}-hint`}>
          {reading ? 'Reading…' : 'Upload a .csv or .jsonl file'}
        </Button>
        {fileName ? <span className="min-w-0 text-xs break-all text-zinc-600 dark:text-zinc-400">From {fileName}</span> : null}
      </div>
      <p id={`${id}-hint`} className="text-xs text-zinc-500 dark:text-zinc-400">
        Up to {LIMITS.batch.maxItems.toLocaleString('en-US')} rows and {formatSize(LIMITS.batch.listBytes)}. Each column becomes a {'{{field}}'} of the template.
      </p>
      <p id={`${id}-error`} role="status" aria-live="polite" className="text-sm break-words text-red-700 dark:text-red-300">
        {shownError}
      </p>
    </div>
  );
}
