import prettyBytes from 'pretty-bytes';

/**
 * A byte count for people, the one formatter of the app and the server's messages: binary units named as such
 * ("25 MiB" for the 26,214,400-byte file limit, "1.5 KiB", "1,023 B"), three significant digits, in the reader's
 * locale (`locale` pins one: the server's messages and tests say 'en'). Steps of 1024 because every limit in
 * lib/limits.ts is one, so a limit and the size refused by it read alike. Not a count: '—'.
 */
export function formatBytes(bytes: number, locale: string | boolean = true): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  return prettyBytes(bytes, { binary: true, locale });
}
