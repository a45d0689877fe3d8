'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { agentKeys } from '@/components/agents/queries';
import { mcpKeys } from './queries';

/**
 * After a server is added, edited or removed: the page's server list is re-rendered, and every cached MCP read (the
 * agent form's usable servers, any tools panel) is read again, so an edited URL or header never shows an old status;
 * so are cached agents (a removed server was taken out of the agents that used it).
 */
export function useMcpChanged(): () => void {
  const router = useRouter();
  const queryClient = useQueryClient();
  return () => {
    router.refresh();
    void queryClient.invalidateQueries({ queryKey: mcpKeys.all });
    void queryClient.invalidateQueries({ queryKey: agentKeys.all });
  };
}
