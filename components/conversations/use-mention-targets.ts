'use client';

import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { MentionOption } from '@/lib/mentions/picker';
import type { MentionTarget } from '@/lib/mentions/types';
import { loadErrorMessage } from './errors';
import { mentionTargetsQuery } from './queries';

/** A team member this conversation can mention, as the composer's list offers it ("Team / Member"). */
export type TargetOption = MentionOption & { target: MentionTarget };

/**
 * The team members a conversation can @mention, for the composer's list. Fetched once the person starts writing
 * (focus or `@`, through `demand`), not on every page view; a failed load is tried again on the next demand.
 */
export function useMentionTargets(conversationId: string) {
  const [wanted, setWanted] = useState(false);
  const query = useQuery({ ...mentionTargetsQuery(conversationId), enabled: wanted, retry: 1 });
  const targets = query.data?.targets;
  const options = useMemo(() => targets?.map((t): TargetOption => ({ key: t.memberId, label: t.label, target: t })), [targets]);
  return {
    options,
    loading: query.isFetching,
    error: query.isError ? loadErrorMessage(query.error, 'Team members') : null,
    demand: () => {
      if (!wanted) setWanted(true);
      else if (query.isError && !query.isFetching) void query.refetch();
    },
    retry: () => void query.refetch(),
  };
}
