// A batch's prompt template (ADR 059): `{{column}}` fields filled from one item. Shared by the browser (checking a
// template against a file's columns before starting) and the server (the same check, then each item's prompt).

const FIELD = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The distinct field names a template uses, in order of first use. */
export function templateFields(template: string): string[] {
  const names = new Set<string>();
  for (const match of template.matchAll(FIELD)) names.add(match[1]!);
  return [...names];
}

/** The template with each field replaced by the item's value for it (a field the item lacks stays as written). */
export function renderTemplate(template: string, item: Readonly<Record<string, string>>): string {
  return template.replace(FIELD, (whole, name: string) => (Object.hasOwn(item, name) ? item[name]! : whole));
}
