/** Plain-text formatting of tool arguments and results. */

/**
 * Pretty-print a value for a <pre>. Strings that hold a JSON object or array are parsed and re-indented
 * (tools often return JSON as text); other strings are shown as they are.
 */
export function prettyValue(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if ((trimmed.startsWith('{') && trimmed.endsWith('}')) || (trimmed.startsWith('[') && trimmed.endsWith(']'))) {
      try {
        return JSON.stringify(JSON.parse(trimmed), null, 2);
      } catch {
        return value;
      }
    }
    return value;
  }
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A one-line preview of arguments for a collapsed tool call: `{"a":1,"b":"x"}` cut to max code points. */
export function previewValue(value: unknown, max = 60): string {
  let text: string;
  if (value === undefined) return '';
  if (typeof value === 'string') text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  text = text.replace(/\s+/g, ' ').trim();
  const points = Array.from(text);
  return points.length > max ? `${points.slice(0, max - 1).join('')}…` : text;
}
