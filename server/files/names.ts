import 'server-only';
import { LIMITS } from '@/lib/limits';

const { maxChars, maxBytes } = LIMITS.files.name;
/**
 * Characters a file name never keeps: C0/C1 controls and DEL, and the bidirectional overrides and isolates that make
 * "report‮fdp.exe" read as another name. Zero-width joiners stay: emoji sequences need them.
 */
const DROPPED = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu;
/** Path separators (and the colon some systems treat as one) become an underscore: a name never names a folder. */
const SEPARATORS = /[/\\:]/g;

const utf8Bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * A file name as stored and shown: NFC, without controls or separators, trimmed, within LIMITS.files.name (cut by
 * code points, the extension kept when it is short). Null when nothing is left: the caller refuses the name.
 */
export function normalizeFileName(raw: string): string | null {
  let name = raw.normalize('NFC').replace(DROPPED, '').replace(SEPARATORS, '_').trim();
  if (name === '.' || name === '..') name = name.replace(/\./g, '_');
  if (!name) return null;
  return fitName(name);
}

/** Cut a name to the bound, keeping a short extension ("….md") so the type a person expects stays visible. */
function fitName(name: string, reserve = 0): string {
  if (Array.from(name).length + reserve <= maxChars && utf8Bytes(name) + reserve <= maxBytes) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
  const stem = Array.from(ext ? name.slice(0, dot) : name);
  while (stem.length && (stem.length + Array.from(ext).length + reserve > maxChars || utf8Bytes(stem.join('') + ext) + reserve > maxBytes)) stem.pop();
  return stem.join('').trimEnd() + ext;
}

/** "report.md" → "report (2).md": the name a duplicate takes, still within the bound. */
export function suffixedName(name: string, n: number): string {
  const suffix = ` (${n})`;
  const fitted = fitName(name, suffix.length);
  const dot = fitted.lastIndexOf('.');
  return dot > 0 ? `${fitted.slice(0, dot)}${suffix}${fitted.slice(dot)}` : `${fitted}${suffix}`;
}

/** The first of name, "name (2)", "name (3)", … that `taken` does not hold. */
export function freeName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let n = 2; ; n++) {
    const candidate = suffixedName(name, n);
    if (!taken.has(candidate)) return candidate;
  }
}
