/**
 * "Setup changed": the assembly fields that differ from the member's (or conversation's) previous run, in words.
 * Pure. Values arrive as unknown JSON from the descriptor, so each is checked before it is formatted.
 */
import type { AssemblyChange } from '@/lib/types/assembly';

/** Readable names for the descriptor's dotted fields; an unknown field keeps its path. */
const FIELD_LABELS: Record<string, string> = {
  model: 'Model',
  instructionsHash: 'Instructions',
  tools: 'Tools',
  approvalTools: 'Tools needing approval',
  unavailable: 'Tools not offered',
  skills: 'Skills',
  'limits.maxTurns': 'Turn limit',
  'limits.timeLimitMinutes': 'Time limit (minutes)',
  'limits.compactAtTokens': 'Compaction threshold (tokens)',
  'limits.tokenBudget': 'Token budget',
  limits: 'Limits',
  middleware: 'Middleware',
  appVersion: 'App version',
};

export const fieldLabel = (field: string) => FIELD_LABELS[field] ?? field;

const HASH = /^[0-9a-f]{32,}$/i;
/** Hashes (fingerprints, instruction hashes) are long: the first 12 characters tell them apart. */
export const shortHash = (hash: string) => hash.slice(0, 12);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function formatSetupValue(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'string') return HASH.test(value) ? shortHash(value) : value || '(empty)';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return 'none';
    return value
      .map((item) =>
        isRecord(item) && typeof item.origin === 'string' && item.reason === 'never_listed'
          ? `${item.origin} (never listed)`
          : isRecord(item) && typeof item.name === 'string' && typeof item.hash === 'string'
            ? // An attached skill (ADR 061): its name and which version of its pack.
              `${item.name} (version ${shortHash(item.hash)})`
            : isRecord(item) && typeof item.name === 'string' ? (typeof item.group === 'string' ? `${item.name} (${item.group})` : item.name) : formatSetupValue(item),
      )
      .join(', ');
  }
  return JSON.stringify(value);
}

export type SetupChangeText = { field: string; label: string; before: string; after: string };

export const setupChangeTexts = (changes: readonly AssemblyChange[]): SetupChangeText[] =>
  changes.map((c) => ({ field: c.field, label: fieldLabel(c.field), before: formatSetupValue(c.before), after: formatSetupValue(c.after) }));

/** The badge's short line: which fields changed, by name. */
export const changedFieldsLine = (changes: readonly AssemblyChange[]) => [...new Set(changes.map((c) => fieldLabel(c.field)))].join(', ');
