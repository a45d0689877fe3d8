'use client';

import { useEffect } from 'react';
import { cn } from '@/components/ui/cn';
import type { ApiMember } from '@/lib/types/team';

export const optionId = (listboxId: string, memberId: string) => `${listboxId}-opt-${memberId}`;

type Props = {
  id: string;
  options: ApiMember[];
  activeIndex: number;
  onPick: (member: ApiMember) => void;
  onHover: (index: number) => void;
  emptyText: string;
};

/**
 * The member list the composer opens for `@` and "@ Choose members". Focus stays in the textarea, which points
 * at the active option with aria-activedescendant; options keep focus there by cancelling mousedown.
 */
export function MentionListbox({ id, options, activeIndex, onPick, onHover, emptyText }: Props) {
  const active = options[activeIndex];
  useEffect(() => {
    if (!active) return;
    document.getElementById(optionId(id, active.id))?.scrollIntoView({ block: 'nearest' });
  }, [id, active]);

  return (
    <div className="absolute inset-x-0 bottom-full z-20 mb-1 max-h-60 overflow-y-auto rounded-md border border-zinc-200 bg-white py-1 shadow-lg dark:border-zinc-700 dark:bg-zinc-900">
      <ul id={id} role="listbox" aria-label="Members">
        {options.map((member, i) => (
          <li
            key={member.id}
            id={optionId(id, member.id)}
            role="option"
            aria-selected={i === activeIndex}
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => onPick(member)}
            onMouseMove={() => i !== activeIndex && onHover(i)}
            className={cn(
              'flex cursor-pointer items-baseline justify-between gap-2 px-3 py-2 text-sm',
              i === activeIndex
                ? 'bg-indigo-600 text-white dark:bg-indigo-500'
                : 'text-zinc-900 dark:text-zinc-100',
            )}
          >
            <span className="min-w-0 truncate font-medium">@{member.name}</span>
            <span className={cn('min-w-0 truncate text-xs', i === activeIndex ? 'text-indigo-100' : 'text-zinc-500 dark:text-zinc-400')}>
              {member.agentName}
            </span>
          </li>
        ))}
      </ul>
      {options.length === 0 ? <p className="px-3 py-2 text-sm text-zinc-500 dark:text-zinc-400">{emptyText}</p> : null}
    </div>
  );
}
