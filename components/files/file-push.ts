import type { QueryClient } from '@tanstack/react-query';
import { refreshOnPush } from '@/lib/query/refresh-on-push';
import type { FileScope } from '@/lib/types/file';
import { fileKeys } from './queries';

/** `event: file` on a team's or a chat's stream: a file of that scope was created, given a version, or deleted. */
export type FilePush = { fileId: string; revision: number; teamId?: string; conversationId?: string };

/** The message's data when it is a file push of this scope (a stream only sends its own; a broken one is ignored). */
export function parseFilePush(data: string, scope: FileScope): FilePush | null {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const push = value as Record<string, unknown>;
  if (typeof push.fileId !== 'string' || typeof push.revision !== 'number') return null;
  const owner = scope.kind === 'team' ? push.teamId : push.conversationId;
  if (owner !== scope.id) return null;
  return push as FilePush;
}

/**
 * Re-read what a file push changed: the scope's list (a member's artifact appears, a deleted file leaves) and the
 * file's own detail (its versions), each at most once on the wire however many pushes arrive (refresh-on-push.ts).
 * A version's preview and a diff never change, so they stay cached.
 */
export function applyFilePush(queryClient: QueryClient, scope: FileScope, data: string): boolean {
  const push = parseFilePush(data, scope);
  if (!push) return false;
  refreshOnPush(queryClient, { queryKey: fileKeys.scope(scope), exact: true });
  refreshOnPush(queryClient, { queryKey: fileKeys.file(push.fileId), exact: true });
  return true;
}
