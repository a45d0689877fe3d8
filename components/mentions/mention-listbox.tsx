'use client';

import { Listbox } from '@/components/ui/listbox';
import { cn } from '@/components/ui/cn';
import type { ListContent, ListTexts, MentionOption } from '@/lib/mentions/picker';

/**
 * The list `@` (or a "choose" button) opens above the message box: the kit's Listbox (focus stays in the textarea,
 * which points at the active option) with the @mention option look and the list's other states — loading, nothing
 * to offer, a load error with Retry — as its status line.
 */
export function MentionListbox<T extends MentionOption>({
  id,
  label,
  content,
  texts,
  activeIndex,
  onPick,
  onHover,
  onRetry,
}: {
  id: string;
  /** The listbox's accessible name. */
  label: string;
  content: ListContent<T>;
  texts: ListTexts;
  activeIndex: number;
  onPick: (option: T) => void;
  onHover: (index: number) => void;
  onRetry?: () => void;
}) {
  return (
    <Listbox
      id={id}
      label={label}
      className="absolute inset-x-0 bottom-full z-20 mb-1"
      options={content.kind === 'options' ? content.options : []}
      getKey={(option) => option.key}
      activeIndex={activeIndex}
      onPick={onPick}
      onActiveChange={onHover}
      busy={content.kind === 'loading'}
      renderOption={(option, { active }) => (
        <span className="flex items-baseline justify-between gap-2">
          <span className="min-w-0 font-medium">@{option.label}</span>
          {option.detail ? (
            <span className={cn('min-w-0 truncate text-xs', active ? 'text-indigo-100' : 'text-zinc-600 dark:text-zinc-400')}>{option.detail}</span>
          ) : null}
        </span>
      )}
      status={content.kind === 'options' ? null : <ListStatus content={content} texts={texts} onRetry={onRetry} />}
    />
  );
}

function ListStatus<T>({ content, texts, onRetry }: { content: Exclude<ListContent<T>, { kind: 'options' }>; texts: ListTexts; onRetry?: () => void }) {
  if (content.kind !== 'error') return <span className="break-words">{texts[content.kind]}</span>;
  return (
    <span className="flex flex-wrap items-center justify-between gap-2">
      <span className="min-w-0 break-words text-red-700 dark:text-red-300">
        {texts.error}: {content.message}
      </span>
      {onRetry ? (
        <button
          type="button"
          onMouseDown={(e) => e.preventDefault()}
          onClick={onRetry}
          className="rounded px-2 py-0.5 text-sm font-medium text-indigo-700 underline hover:text-indigo-600 dark:text-indigo-300"
        >
          Retry
        </button>
      ) : null}
    </span>
  );
}
