'use client';

import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Button } from './button';
import { rememberFocus } from './focus-return';
import { Input } from './input';

/**
 * The one time a secret (an API token, an invitation link) is shown: a message, a read-only field, a Copy button
 * and Done. Without clipboard access (e.g. plain http on another host) the text is selected so Ctrl+C / ⌘C works.
 * It takes the focus when shown (the secret, selected, is what the person came for) and gives it back on Done to
 * what had it before (the button that made the secret), so a keyboard user never lands on the page's <body>.
 */
export function SecretOnce({
  label,
  fieldLabel,
  value,
  message,
  onDismiss,
}: {
  /** The region's accessible name, e.g. "New API token". */
  label: string;
  fieldLabel: string;
  value: string;
  message: ReactNode;
  onDismiss: () => void;
}) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [copyState, setCopyState] = useState<'idle' | 'copied' | 'manual'>('idle');
  const focusBack = useRef<{ restore: () => void } | null>(null);

  useEffect(() => {
    focusBack.current = rememberFocus();
    inputRef.current?.focus();
  }, []);

  const done = () => {
    // Given back while this region is still on the page, so the focus never passes through <body>.
    focusBack.current?.restore();
    onDismiss();
  };

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopyState('copied');
    } catch {
      inputRef.current?.select();
      setCopyState('manual');
    }
  };

  return (
    <div
      role="region"
      aria-label={label}
      className="space-y-3 rounded-md border border-emerald-300 bg-emerald-50 p-4 dark:border-emerald-900 dark:bg-emerald-950"
    >
      <p className="text-sm font-medium break-words text-emerald-900 dark:text-emerald-100">{message}</p>
      <div className="flex flex-col gap-2 sm:flex-row">
        <Input
          ref={inputRef}
          readOnly
          value={value}
          aria-label={fieldLabel}
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
        <Button variant="ghost" size="sm" onClick={done}>
          Done
        </Button>
      </div>
    </div>
  );
}
