/**
 * Env variables ("NAME=value") or headers ("Name: value") typed one per line, as the object the API takes. A line
 * without its separator is reported by number, so the form can say which; the values are checked by the server.
 */
export function parseSecretLines(text: string, separator: '=' | ':'): { ok: true; value: Record<string, string> } | { ok: false; line: number } {
  const value: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    if (line.trim() === '') continue;
    const at = line.indexOf(separator);
    if (at <= 0) return { ok: false, line: i + 1 };
    value[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return { ok: true, value };
}

/** Arguments typed one per line (empty lines dropped; spaces inside an argument kept). */
export const argLines = (text: string): string[] => text.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l.trim() !== '');
