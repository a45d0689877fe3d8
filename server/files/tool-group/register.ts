import 'server-only';
import { registerToolGroup } from '@/server/agents/tools/registry';
import { fileTools } from './tools';

/**
 * Register the `files` tool group (ADR 058): list_files, read_file, search_files, write_file, append_file, on the
 * team workspace for a member's run and the chat's files otherwise (the scope comes from the run's context). No tool
 * deletes: only the person does. Idempotent.
 */
export function registerFileTools(): void {
  registerToolGroup('files', fileTools);
}
