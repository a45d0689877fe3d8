'use client';

import { useEffect } from 'react';
import { cn } from '@/components/ui/cn';
import { POPUP_TEXT, type PopupContent } from '@/lib/mentions/picker';
import type { MentionTarget } from '@/lib/mentions/types';

export const mentionOptionId = (listboxId: string, memberId: string) => `${listboxId}-opt-${memberId}`;

/**
 * The list `@` opens above the message box. Focus stays in the textarea, which points at the active option
 * with aria-activedescendant; options cancel mousedown so a click doesn't blur the textarea first.
 */
export function MentionPopup({
  listboxId,
  content,
  activeIndex,
  onPick,
  onHover,
  onRetry,
}: {
  listboxId: string;
  content: PopupContent;
  activeIndex: number;
  onPick: (target: MentionTarget) => void;
  onHover: (index: number) => void;
  onRetry: () => void;
}) {
  const options = content.kind === 'options' ? content.options : [];
  const active = options[activeIndex];
  useEffect(() => {
    if (active) document.getElementById(mentionOptionId(listboxId, active.memberId))?.scrollIntoView({ block: 'nearest' });
  }, [listboxId, active]);

  return (
    <div className="absolute inset-x-0 bottom-full z-20 mb-1 max-h-60 overflow-y-auto rounded-md border border-zinc-200 bg-white py-1 shadow-lg dark:border-zinc-700 dark:bg-zinc-900">
      <ul id={listboxId} role="listbox" aria-label="Team members to mention" aria-busy={content.kind === 'loading' || undefined}>
        {options.map((target, i) => (
          <li
            key={target.memberId}
            id={mentionOptionId(listboxId, target.memberId)}
            role="option"
            aria-selected={i === activeIndex}
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => onPick(target)}
            onMouseMove={() => i !== activeIndex && onHover(i)}
            className={cn(
              'cursor-pointer px-3 py-2 text-sm break-words [overflow-wrap:anywhere]',
              i === activeIndex ? 'bg-indigo-600 text-white dark:bg-indigo-500' : 'text-zinc-900 dark:text-zinc-100',
            )}
          >
            @{target.label}
          </li>
        ))}
      </ul>
      {content.kind === 'options' ? null : (
        <div role="status" className="flex flex-wrap items-center justify-between gap-2 px-3 py-2 text-sm text-zinc-600 dark:text-zinc-400">
          {content.kind === 'error' ? (
            <>
              <span className="min-w-0 break-words text-red-700 dark:text-red-300">Could not load team members: {content.message}</span>
              <button
                type="button"
                onMouseDown={(e) => e.preventDefault()}
                onClick={onRetry}
                className="rounded px-2 py-0.5 text-sm font-medium text-indigo-700 underline hover:text-indigo-600 dark:text-indigo-300"
              >
                Retry
              </button>
            </>
          ) : (
            <span className="min-w-0 break-words">{POPUP_TEXT[content.kind]}</span>
          )}
        </div>
      )}
    </div>
  );
}
