import prettyBytes from 'pretty-bytes';

/**
 * A byte count for people, the one formatter of the app and the server's messages: under 1 KiB in words ("1 byte",
 * "1,023 bytes"), above in binary units named as such ("1.5 KiB", "25 MiB" for the 26,214,400-byte file limit) with
 * three significant digits, in the reader's locale (`locale` pins one: the server's messages say 'en'). Steps of
 * 1024 because every limit in lib/limits.ts is one, so a limit and the size refused by it read alike. Not a count: '—'.
 */
export function formatBytes(bytes: number, locale?: string): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  if (bytes < 1024) return new Intl.NumberFormat(locale, { style: 'unit', unit: 'byte', unitDisplay: 'long' }).format(bytes);
  return prettyBytes(bytes, { binary: true, locale: locale ?? true });
}
