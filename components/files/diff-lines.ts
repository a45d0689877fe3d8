/**
 * A unified diff (GET /api/v1/files/:id/diff) as lines to render: each line says what it is in words (`sign` for
 * sighted readers, `label` for a screen reader), so added and removed lines are told apart without colour, and
 * carries its line numbers in the old and the new version.
 */
export type DiffLineKind = 'added' | 'removed' | 'context' | 'hunk' | 'note';

export type DiffLine = {
  kind: DiffLineKind;
  /** The line's text without its +/-/space marker. */
  text: string;
  /** '+', '−' or '' (a hunk header or note shows its text only). */
  sign: '+' | '−' | '';
  /** What a screen reader hears before the text. */
  label: string;
  oldLine: number | null;
  newLine: number | null;
};

export type DiffModel = { lines: DiffLine[]; added: number; removed: number };

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** Parse a unified diff; the file headers (Index:, ===, ---, +++) are dropped, hunks and "\\ No newline" kept. */
export function parseUnifiedDiff(diff: string): DiffModel {
  const lines: DiffLine[] = [];
  let added = 0;
  let removed = 0;
  let oldNo = 0;
  let newNo = 0;
  // Lines still to come in the current hunk, from its header's counts: past them, a '---' is a header, not a removal.
  let oldLeft = 0;
  let newLeft = 0;
  const raw = diff.split('\n');
  // A diff ends with a newline: its last, empty piece is not a line.
  if (raw.length > 0 && raw[raw.length - 1] === '') raw.pop();
  for (const line of raw) {
    const hunk = HUNK.exec(line);
    if (hunk) {
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[3]);
      oldLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      newLeft = hunk[4] === undefined ? 1 : Number(hunk[4]);
      lines.push({ kind: 'hunk', text: line, sign: '', label: `Lines from ${oldNo} (old) and ${newNo} (new)`, oldLine: null, newLine: null });
      continue;
    }
    if (line.startsWith('\\')) {
      if (lines.length > 0) lines.push({ kind: 'note', text: line.slice(1).trim(), sign: '', label: '', oldLine: null, newLine: null });
      continue;
    }
    if (oldLeft === 0 && newLeft === 0) continue;
    if (line.startsWith('+')) {
      added++;
      newLeft--;
      lines.push({ kind: 'added', text: line.slice(1), sign: '+', label: 'Added: ', oldLine: null, newLine: newNo++ });
    } else if (line.startsWith('-')) {
      removed++;
      oldLeft--;
      lines.push({ kind: 'removed', text: line.slice(1), sign: '−', label: 'Removed: ', oldLine: oldNo++, newLine: null });
    } else {
      // A context line (' text'; some tools drop the space of an empty one).
      oldLeft--;
      newLeft--;
      lines.push({ kind: 'context', text: line.slice(1), sign: '', label: 'Unchanged: ', oldLine: oldNo++, newLine: newNo++ });
    }
  }
  return { lines, added, removed };
}

/** "2 lines added, 1 removed" — the diff's summary, said in words. */
export function diffSummary({ added, removed }: Pick<DiffModel, 'added' | 'removed'>): string {
  if (added === 0 && removed === 0) return 'No changes between these versions.';
  const a = `${added} ${added === 1 ? 'line' : 'lines'} added`;
  const r = `${removed} removed`;
  return `${a}, ${r}`;
}
