'use client';

import type { ReactNode } from 'react';
import { cn } from '@/components/ui/cn';

/** The small ▸ toggle used by the run panels: a real button that says whether its region is open. */
export function DisclosureButton({
  open,
  controls,
  onToggle,
  children,
  className,
}: {
  open: boolean;
  controls: string;
  onToggle: () => void;
  children: ReactNode;
  className?: string;
}) {
  return (
    <button
      type="button"
      aria-expanded={open}
      aria-controls={controls}
      onClick={onToggle}
      className={cn(
        'inline-flex items-center gap-1 rounded text-xs font-medium text-zinc-600 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-zinc-400 dark:hover:text-zinc-100',
        className,
      )}
    >
      {/* An SVG, not a ▸ character: the button's text stays just its label. */}
      <svg aria-hidden viewBox="0 0 8 8" className={cn('size-2 shrink-0 fill-current transition-transform', open && 'rotate-90')}>
        <path d="M2 1l4 3-4 3z" />
      </svg>
      {children}
    </button>
  );
}
