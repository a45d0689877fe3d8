import 'server-only';
import type { UnavailableTools } from '@/lib/types/assembly';
import type { RunContext } from '../run-types';

// On globalThis: the group that notes (registered at start-up, from instrumentation's copy of this module) and the
// run that reads (a route's copy, when a request launched it) may hold separate copies of the module.
const g = globalThis as unknown as { __ensembleToolNotes?: WeakMap<RunContext, Map<string, UnavailableTools>>; __ensembleMissingMcpServers?: WeakMap<RunContext, string[]> };

/**
 * Tools a run's setup names but can't offer, and why (ADR 057): a tool group notes them while it builds the run's
 * tools (an MCP server never listed has no known tools), and the assembly record carries the note, so the run's
 * setup says why they are absent. Keyed by the run's context object, like the shared build (registry.ts); a group
 * that builds again replaces its note. Reasons are codes, and the origin names only the server: no text a server or
 * a person wrote besides that name, and none of it goes near a system message.
 */
const notes = (g.__ensembleToolNotes ??= new WeakMap());

export function noteUnavailableTools(context: RunContext, group: string, entries: UnavailableTools): void {
  const byGroup = notes.get(context) ?? new Map<string, UnavailableTools>();
  byGroup.set(group, entries);
  notes.set(context, byGroup);
}

/** The run's notes, sorted by origin (the descriptor's arrays are sorted where they are sets). */
export function unavailableToolsOf(context: RunContext): UnavailableTools {
  const all = [...(notes.get(context)?.values() ?? [])].flat();
  return all.sort((a, b) => (a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : 0));
}

/**
 * MCP servers (ids) the agent names that this run may not use — deleted, or not the owner's (ADR 055) — noted by the
 * `mcp` group as it builds, keyed by the run's context like the notes above (a rebuild replaces the note, so a
 * retried transaction that builds again notes them once). The executor records them as a step of the run
 * (`tools.unavailable`), so the person sees why those tools are missing; only ids, never a server's name.
 */
const missingServers = (g.__ensembleMissingMcpServers ??= new WeakMap());

export function noteMissingMcpServers(context: RunContext, serverIds: readonly string[]): void {
  missingServers.set(context, [...serverIds]);
}

export const missingMcpServersOf = (context: RunContext): string[] => missingServers.get(context) ?? [];
