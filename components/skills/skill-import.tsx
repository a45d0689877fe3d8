'use client';

import { useId, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError, apiFetch } from '@/lib/api-client';
import { LIMITS } from '@/lib/limits';
import type { SkillView } from '@/lib/types/skill';
import { Alert } from '@/components/ui/misc';
import { formatBytes } from '@/lib/byte-size';
import { skillKeys } from './queries';

/**
 * Import a skill pack from a ZIP (SKILL.md at its top or in its one folder, text files beside it): the archive goes
 * to POST /api/v1/skills/import as raw bytes, as the file uploads do; the server checks every bound and says which.
 * Not a server action: an action's body arrives on a page path, where every body is capped at 1 MB before anyone is
 * signed in (Next's action and proxy caps, server/http/page-body-guard.ts), below LIMITS.skills.zipBytes (2 MiB).
 */
export function SkillImport({ onImported }: { onImported: (skill: SkillView) => void }) {
  const queryClient = useQueryClient();
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function upload(file: File) {
    setError(null);
    if (file.size > LIMITS.skills.zipBytes) {
      setError(`That archive is larger than ${formatBytes(LIMITS.skills.zipBytes)}`);
      return;
    }
    setPending(true);
    try {
      const skill = await apiFetch<SkillView>('/api/v1/skills/import', { method: 'POST', body: file, headers: { 'content-type': 'application/octet-stream' } });
      await queryClient.invalidateQueries({ queryKey: skillKeys.all });
      onImported(skill);
    } catch (err) {
      setError(err instanceof ApiError || err instanceof Error ? err.message : 'The import failed');
    } finally {
      setPending(false);
      if (input.current) input.current.value = '';
    }
  }

  return (
    <div className="space-y-2">
      <label htmlFor={id} className="block text-sm font-medium text-zinc-800 dark:text-zinc-200">
        Import a ZIP
      </label>
      <input
        ref={input}
        id={id}
        type="file"
        accept=".zip,application/zip"
        disabled={pending}
        aria-describedby={`${id}-hint`}
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (file) void upload(file);
        }}
        className="block w-full text-sm text-zinc-700 file:mr-3 file:rounded-md file:border-0 file:bg-zinc-100 file:px-3 file:py-1.5 file:text-sm file:font-medium dark:text-zinc-300 dark:file:bg-zinc-800 dark:file:text-zinc-100"
      />
      <p id={`${id}-hint`} className="text-xs text-zinc-500 dark:text-zinc-400">
        A folder with SKILL.md (YAML front matter with name and description, then the instructions) and text files beside it.
      </p>
      {pending ? (
        <p role="status" className="text-sm text-zinc-600 dark:text-zinc-400">
          Importing…
        </p>
      ) : null}
      {error ? <Alert>{error}</Alert> : null}
    </div>
  );
}
