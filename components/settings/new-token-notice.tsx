'use client';

import { useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import type { CreatedApiToken } from '@/lib/schemas/auth';

/** The one time a token's plain value is shown: a read-only field, a Copy button, and a warning. */
export function NewTokenNotice({ token, onDismiss }: { token: CreatedApiToken; onDismiss: () => void }) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [copyState, setCopyState] = useState<'idle' | 'copied' | 'manual'>('idle');

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token.token);
      setCopyState('copied');
    } catch {
      // No clipboard access (e.g. plain http on another host): select the text so Ctrl+C / ⌘C works.
      inputRef.current?.select();
      setCopyState('manual');
    }
  };

  return (
    <div
      role="region"
      aria-label="New API token"
      className="space-y-3 rounded-md border border-emerald-300 bg-emerald-50 p-4 dark:border-emerald-900 dark:bg-emerald-950"
    >
      <p className="text-sm font-medium break-words text-emerald-900 dark:text-emerald-100">
        Token “{token.name}” created. Copy it now: it won’t be shown again.
      </p>
      <div className="flex flex-col gap-2 sm:flex-row">
        <Input
          ref={inputRef}
          readOnly
          value={token.token}
          aria-label="New token"
          className="min-w-0 flex-1 font-mono"
          onFocus={(e) => e.currentTarget.select()}
        />
        <Button variant="secondary" onClick={copy}>
          Copy
        </Button>
      </div>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p role="status" className="text-sm text-emerald-800 dark:text-emerald-200">
          {copyState === 'copied' ? 'Copied to the clipboard.' : copyState === 'manual' ? 'Selected: press Ctrl+C (⌘C) to copy.' : ''}
        </p>
        <Button variant="ghost" size="sm" onClick={onDismiss}>
          Done
        </Button>
      </div>
    </div>
  );
}
