import { AGENT_FIELDS, type AgentField } from '@/lib/schemas/agent-fields';

/**
 * Split an API error's `fields` into messages for the form's fields and the rest (shown above the form).
 * Paths like "toolGroups.0" belong to their top-level field.
 */
export function splitFieldErrors(fields: Record<string, string>): { byField: Partial<Record<AgentField, string>>; other: string[] } {
  const byField: Partial<Record<AgentField, string>> = {};
  const other: string[] = [];
  for (const [path, message] of Object.entries(fields)) {
    const head = path.split('.')[0] ?? '';
    if ((AGENT_FIELDS as readonly string[]).includes(head)) byField[head as AgentField] ??= message;
    else other.push(path === '_' ? message : `${path}: ${message}`);
  }
  return { byField, other };
}
