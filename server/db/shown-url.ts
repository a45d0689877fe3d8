import 'server-only';

/** A database URL without its password, for messages and logs. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(an unparsable DATABASE_URL)';
  }
}
