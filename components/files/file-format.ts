import type { ApiFileAuthor, FileScope } from '@/lib/types/file';

const UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const;

/**
 * A byte count for people: "0 bytes", "1 byte", "1,023 bytes", "1 kB", "25 MB", through Intl so each locale spells
 * its own numbers and units; one decimal below ten. Steps of 1024, as the server words its limits (server/files/
 * errors.ts: 25 × 1024 × 1024 bytes is "25 MB"), so a file's size and the limit it was refused for agree.
 */
export function formatFileSize(bytes: number, locale?: string): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  // 1023.5 kB would be shown rounded as "1,024 kB": say "1 MB" instead.
  if (unit > 0 && unit < UNITS.length - 1 && Math.round(value) >= 1024) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 10 ? 0 : 1;
  return new Intl.NumberFormat(locale, {
    style: 'unit',
    unit: UNITS[unit],
    unitDisplay: unit === 0 ? 'long' : 'short',
    maximumFractionDigits: digits,
  }).format(unit === 0 ? bytes : value);
}

/** Who wrote a version, as the list says it: the person is "You", a member by its name. */
export function authorLabel(author: ApiFileAuthor): string {
  return author.kind === 'person' ? 'You' : author.name;
}

/** The scope's files endpoint: /api/v1/teams/:id/files or /api/v1/conversations/:id/files. */
export function scopeFilesPath(scope: FileScope): string {
  const base = scope.kind === 'team' ? 'teams' : 'conversations';
  return `/api/v1/${base}/${encodeURIComponent(scope.id)}/files`;
}

export const filePath = (fileId: string) => `/api/v1/files/${encodeURIComponent(fileId)}`;

/** The bytes of one version, as a download (attachment), or inline for an image the server serves inline. */
export function fileContentUrl(fileId: string, revision: number, inline = false): string {
  const params = new URLSearchParams({ revision: String(revision) });
  if (inline) params.set('inline', '1');
  return `${filePath(fileId)}/content?${params}`;
}

/**
 * A pick or drop with more files than there is room for: the rest is refused, and said. `where` is a composer's
 * attachments (bounded per message) or the Files panel's uploads (bounded at once).
 */
export function refusedBeyond(refused: number, max: number, where: 'message' | 'panel'): string {
  const files = refused === 1 ? '1 file was' : `${refused} files were`;
  return where === 'message'
    ? `${files} not attached: at most ${max} files go with one message.`
    : `${files} not uploaded: at most ${max} uploads run at once. Add ${refused === 1 ? 'it' : 'them'} when these finish.`;
}
