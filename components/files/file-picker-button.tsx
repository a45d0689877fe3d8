'use client';

import { useRef, type ReactNode } from 'react';
import { Button } from '@/components/ui/button';

/**
 * A button that opens the system's file picker (a hidden multiple file input behind it, so the control is an
 * ordinary labelled button in the tab order). The input is emptied after each pick, so picking the same file again
 * adds it again.
 */
export function FilePickerButton({
  onFiles,
  children,
  label,
  disabled,
}: {
  onFiles: (files: File[]) => void;
  children: ReactNode;
  /** The accessible name when the visible text is shorter (e.g. an icon). */
  label?: string;
  disabled?: boolean;
}) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <Button variant="secondary" size="sm" aria-label={label} disabled={disabled} onClick={() => input.current?.click()}>
        {children}
      </Button>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        tabIndex={-1}
        aria-hidden
        onChange={(e) => {
          const files = Array.from(e.currentTarget.files ?? []);
          e.currentTarget.value = '';
          if (files.length > 0) onFiles(files);
        }}
      />
    </>
  );
}
