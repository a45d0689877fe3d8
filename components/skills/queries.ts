/**
 * Skill reads, as TanStack `queryOptions` factories under ['skills', …], one per endpoint: the account's skills
 * (GET /api/v1/skills: Skills page and the agent form) and one skill with its body (GET /api/v1/skills/:id: the edit
 * form). Writing, editing and deleting are server actions (app/(app)/skills/actions.ts); a ZIP import posts the
 * archive to POST /api/v1/skills/import (raw bytes, as the file uploads do).
 */
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '@/lib/api-client';
import type { SkillSummary, SkillView } from '@/lib/types/skill';

export const skillKeys = {
  all: ['skills'] as const,
  list: ['skills', 'list'] as const,
  detail: (id: string) => ['skills', 'detail', id] as const,
};

export const fetchSkills = (signal?: AbortSignal) => apiFetch<SkillSummary[]>('/api/v1/skills', { signal });
export const skillsQuery = () => queryOptions({ queryKey: skillKeys.list, queryFn: ({ signal }) => fetchSkills(signal), staleTime: 30_000 });

export const fetchSkill = (id: string, signal?: AbortSignal) => apiFetch<SkillView>(`/api/v1/skills/${encodeURIComponent(id)}`, { signal });
export const skillQuery = (id: string) => queryOptions({ queryKey: skillKeys.detail(id), queryFn: ({ signal }) => fetchSkill(id, signal) });
