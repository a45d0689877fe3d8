'use client';

import { useEffect, type ReactNode } from 'react';
import { cn } from './cn';
import { listboxOptionId } from './listbox-keys';

/**
 * The props interface composers build on (agreed with the conversation/team composer): the listbox does not own
 * focus or keys. The text field that opens it keeps focus and carries, while open,
 *   role="combobox" aria-expanded aria-controls={id} aria-autocomplete="list"
 *   aria-activedescendant={activeIndex >= 0 ? listboxOptionId(id, getKey(options[activeIndex])) : undefined}
 * and moves `activeIndex` with nextActiveIndex() (listbox-keys.ts) on ArrowUp/ArrowDown, picks on Enter/Tab and
 * closes on Escape. The listbox renders the options, scrolls the active one into view, and reports pointer picks
 * (mousedown is cancelled so a click never blurs the field first).
 */
export type ListboxProps<T> = {
  /** DOM id of the role="listbox" element: the field's aria-controls. */
  id: string;
  /** Accessible name, e.g. "Team members to mention". */
  label: string;
  options: readonly T[];
  /** Stable, unique per option; also builds the option's DOM id. */
  getKey: (option: T) => string;
  /** -1 when none is active. */
  activeIndex: number;
  renderOption: (option: T, state: { active: boolean }) => ReactNode;
  onPick: (option: T) => void;
  /** The pointer moved onto an option: make it active (so keys continue from there). */
  onActiveChange: (index: number) => void;
  /** Options are still loading (aria-busy). */
  busy?: boolean;
  /** Shown under the options: "No members match", a loading line, an error with Retry. Announced politely. */
  status?: ReactNode;
  className?: string;
};

export function Listbox<T>({ id, label, options, getKey, activeIndex, renderOption, onPick, onActiveChange, busy, status, className }: ListboxProps<T>) {
  const active = activeIndex >= 0 ? options[activeIndex] : undefined;
  const activeId = active === undefined ? null : listboxOptionId(id, getKey(active));
  useEffect(() => {
    if (activeId) document.getElementById(activeId)?.scrollIntoView({ block: 'nearest' });
  }, [activeId]);

  return (
    <div
      className={cn(
        'max-h-60 overflow-y-auto rounded-md border border-zinc-200 bg-white py-1 shadow-lg dark:border-zinc-700 dark:bg-zinc-900',
        className,
      )}
    >
      <ul id={id} role="listbox" aria-label={label} aria-busy={busy || undefined}>
        {options.map((option, i) => {
          const key = getKey(option);
          const isActive = i === activeIndex;
          return (
            <li
              key={key}
              id={listboxOptionId(id, key)}
              role="option"
              aria-selected={isActive}
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => onPick(option)}
              onMouseMove={() => !isActive && onActiveChange(i)}
              className={cn(
                'cursor-pointer px-3 py-2 text-sm wrap-anywhere',
                isActive ? 'bg-indigo-600 text-white' : 'text-zinc-900 dark:text-zinc-100',
              )}
            >
              {renderOption(option, { active: isActive })}
            </li>
          );
        })}
      </ul>
      {status ? (
        <div role="status" className="px-3 py-2 text-sm text-zinc-600 dark:text-zinc-400">
          {status}
        </div>
      ) : null}
    </div>
  );
}
